import type { invoicing } from '@bo/contracts';
import { dec, roundTo, sum, vatInAccountingCurrency, type Dec, type DecimalLike } from '@bo/kernel';

type InvoiceType = invoicing.InvoiceType;

export interface JournalLine {
  account: string;
  debit: Dec;
  credit: Dec;
  label: string;
  /** On lines of a VAT breakdown row (revenue or expense, tax, self-assessed tax): its EN 16931 category. */
  tax_category?: string;
  /** Its rate, in percent. */
  tax_rate?: Dec;
  /** The taxable amount (BT-116) the line's tax is computed on, in the entry's currency. */
  tax_base?: Dec;
  /** A line on the partner's trade account (receivable or payable): what moves its balance (tradeMove). Not stored. */
  trade?: true;
}

export interface InvoiceAccounts {
  /** Receivable (sales side) or payable (purchase side): `tradeaccount`. */
  trade: string;
  /** Revenue (sales side) or expense (purchase side): `chartofaccounts`. */
  counterpart: string;
  /** The VAT the document states: output VAT on sales, input VAT on purchases. */
  tax: string;
  /** Where reverse charge books the VAT the organization owes on a purchase (output VAT). */
  selfAssessedOutput: string;
  /** Where it books the same VAT as deductible (input VAT). */
  selfAssessedInput: string;
  /** Rounding differences: BT-114, and what converting to the accounting currency leaves. */
  rounding: string;
  /** `invoicejournal`. */
  journal: string;
}

const SALES_SIDE: ReadonlySet<InvoiceType> = new Set(['invoiceout', 'creditout']);

export const TAX_PAYABLE = '2200 Tax Payable';
export const TAX_RECEIVABLE = '1400 Tax Receivable';
export const ROUNDING_ACCOUNT = '7600 Rounding Differences';
export const RECEIVABLE_ACCOUNT = '1200 Accounts Receivable';
export const PAYABLE_ACCOUNT = '2000 Accounts Payable';

/** Defaults an accountant would expect from a fresh chart of accounts, when the invoice names none. */
export function accountsFor(
  type: InvoiceType,
  given: { chartofaccounts?: string | null; tradeaccount?: string | null; invoicejournal?: string | null },
): InvoiceAccounts {
  const sales = SALES_SIDE.has(type);
  return {
    trade: given.tradeaccount || (sales ? RECEIVABLE_ACCOUNT : PAYABLE_ACCOUNT),
    counterpart: given.chartofaccounts || (sales ? '4000 Sales Revenue' : '5000 Purchases'),
    tax: sales ? TAX_PAYABLE : TAX_RECEIVABLE,
    selfAssessedOutput: TAX_PAYABLE,
    selfAssessedInput: TAX_RECEIVABLE,
    rounding: ROUNDING_ACCOUNT,
    journal: given.invoicejournal || (sales ? 'Sales Journal' : 'Purchase Journal'),
  };
}

export const DEFAULT_PAYMENT_JOURNAL = 'Bank';

/** A debit line and a credit line (domain/cash.ts posts with them too). */
export const dr = (account: string, amount: DecimalLike, label: string): JournalLine => ({
  account,
  debit: dec(amount),
  credit: dec(0),
  label,
});
export const cr = (account: string, amount: DecimalLike, label: string): JournalLine => ({
  account,
  debit: dec(0),
  credit: dec(amount),
  label,
});

/** The same line, marked as one on the partner's trade account. */
export const tradeLine = (line: JournalLine): JournalLine => ({ ...line, trade: true });

/**
 * What an entry's lines move the partner's trade accounts by in the accounting currency, debit minus
 * credit: positive when the partner owes more (a receivable debited, a payable debited). The one
 * figure the events of a posting carry to the partners ledger (`trade_delta`, docs/partners.md
 * "Currencies"), so its balance moves by exactly what the journal posted, never by a formula of its own.
 */
export function tradeMove(lines: readonly JournalLine[]): Dec {
  return sum(lines.filter((l) => l.trade).map((l) => l.debit.minus(l.credit)));
}

/** A credit note is its invoice's entry mirrored: every debit becomes a credit. */
function mirror(lines: JournalLine[]): JournalLine[] {
  return lines.map((l) => ({ ...l, debit: l.credit, credit: l.debit }));
}

/** A debit or credit may be negative as computed (a negative rounding amount): it is then the other side. */
function normalized(line: JournalLine): JournalLine {
  const net = line.debit.minus(line.credit);
  return net.isNegative() ? { ...line, debit: dec(0), credit: net.neg() } : { ...line, debit: net, credit: dec(0) };
}

/** One VAT breakdown row (BG-23) as the entry posts it. */
export interface BreakdownFigures {
  tax_category: string;
  tax_rate: DecimalLike;
  taxable_amount: DecimalLike;
  tax_amount: DecimalLike;
}

/** What a validated document posts, in its own currency (the kernel's calculation, invoice/taxes.ts). */
export interface EntryFigures {
  /** BT-115. */
  payable: DecimalLike;
  breakdown: readonly BreakdownFigures[];
  /** BT-114. */
  rounding_amount: DecimalLike;
  /** Reverse charge a purchase self-assesses: per rate, the base of its AE rows. */
  self_assessed?: ReadonlyArray<{ rate: DecimalLike; base: DecimalLike }>;
  /** Decimals of the document's currency: the self-assessed VAT is rounded to them. */
  places: number;
}

/** Posting in the accounting `currency`: `rate` units of it per document unit, amounts rounded to its minor unit. */
export interface Conversion {
  rate: DecimalLike;
  currency: string;
}

/**
 * The posting of a validated document (docs/invoicing.md "Journal entries"), balanced:
 * - the trade account takes the amount due (BT-115);
 * - revenue (sales) or expense (purchases) takes, per VAT category and rate, its taxable amount
 *   (BT-116: its lines' nets less allowances plus charges), tagged with the category, rate and base;
 * - the tax account takes, per category and rate, the breakdown's VAT (BT-117) exactly;
 * - the rounding account takes BT-114;
 * - a purchase's reverse-charge rows self-assess: input VAT debited and output VAT credited, rate x
 *   base each, net zero.
 * In another currency than the document's, each line is converted at `conversion.rate` and rounded
 * on its own, the VAT of each category as the kernel's `vatInAccountingCurrency` decides it (the
 * document's BT-111 is their sum); what that leaves between the trade line and the others goes to
 * the rounding account.
 * Zero amounts make no line.
 */
export function invoiceEntryLines(
  type: InvoiceType,
  figures: EntryFigures,
  accounts: InvoiceAccounts,
  conversion: Conversion | null = null,
): JournalLine[] {
  const sales = SALES_SIDE.has(type);
  const vat = conversion ? vatInAccountingCurrency(figures.breakdown, conversion.rate, conversion.currency) : null;
  const convert = (v: DecimalLike) => (conversion && vat ? roundTo(dec(v).times(dec(conversion.rate)), vat.minor_unit) : dec(v));
  const tagged = (line: JournalLine, b: { tax_category: string; tax_rate: DecimalLike }, base: DecimalLike): JournalLine => ({
    ...line,
    tax_category: b.tax_category,
    tax_rate: dec(b.tax_rate),
    tax_base: convert(base),
  });

  // Written as an invoice: sales credit revenue and tax, purchases debit expense and tax.
  const side = (account: string, amount: DecimalLike, label: string) => (sales ? cr(account, amount, label) : dr(account, amount, label));
  const trade = tradeLine(
    sales ? dr(accounts.trade, convert(figures.payable), 'Receivable') : cr(accounts.trade, convert(figures.payable), 'Payable'),
  );
  const lines: JournalLine[] = [trade];
  figures.breakdown.forEach((b, n) => {
    const tax = vat ? (vat.categories[n]?.tax_amount ?? dec(0)) : dec(b.tax_amount);
    lines.push(tagged(side(accounts.counterpart, convert(b.taxable_amount), sales ? 'Revenue' : 'Expense'), b, b.taxable_amount));
    lines.push(tagged(side(accounts.tax, tax, 'Tax'), b, b.taxable_amount));
  });
  lines.push(side(accounts.rounding, convert(figures.rounding_amount), 'Rounding'));
  if (!sales) {
    for (const s of figures.self_assessed ?? []) {
      const tax = roundTo(dec(s.base).times(dec(s.rate)).div(100), figures.places);
      const b = { tax_category: 'AE', tax_rate: s.rate };
      lines.push(tagged(dr(accounts.selfAssessedInput, convert(tax), 'Reverse charge input VAT'), b, s.base));
      lines.push(tagged(cr(accounts.selfAssessedOutput, convert(tax), 'Reverse charge output VAT'), b, s.base));
    }
  }
  // What converting each line on its own leaves: the trade line is the amount due, the rest is rounding.
  // In the document's own currency nothing is left; if something were, postEntry refuses the entry.
  const difference = sum(lines.map((l) => l.debit)).minus(sum(lines.map((l) => l.credit)));
  if (conversion && !difference.isZero()) lines.push(cr(accounts.rounding, difference, 'Conversion rounding'));
  const oriented = type === 'creditout' || type === 'creditin' ? mirror(lines) : lines;
  return oriented.map(normalized).filter((l) => !l.debit.isZero() || !l.credit.isZero());
}

export function isBalanced(lines: JournalLine[]): boolean {
  return sum(lines.map((l) => l.debit)).equals(sum(lines.map((l) => l.credit)));
}
