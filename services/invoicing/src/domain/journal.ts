import type { invoicing } from '@bo/contracts';
import { dec, sum, type Dec, type DecimalLike } from '@bo/kernel';

type InvoiceType = invoicing.InvoiceType;

export interface JournalLine {
  account: string;
  debit: Dec;
  credit: Dec;
  label: string;
}

export interface InvoiceAccounts {
  /** Receivable (sales side) or payable (purchase side): `tradeaccount`. */
  trade: string;
  /** Revenue (sales side) or expense (purchase side): `chartofaccounts`. */
  counterpart: string;
  tax: string;
  /** `invoicejournal`. */
  journal: string;
}

const SALES_SIDE: ReadonlySet<InvoiceType> = new Set(['invoiceout', 'creditout']);

/** Defaults an accountant would expect from a fresh chart of accounts, when the invoice names none. */
export function accountsFor(
  type: InvoiceType,
  given: { chartofaccounts?: string | null; tradeaccount?: string | null; invoicejournal?: string | null },
): InvoiceAccounts {
  const sales = SALES_SIDE.has(type);
  return {
    trade: given.tradeaccount || (sales ? '1200 Accounts Receivable' : '2000 Accounts Payable'),
    counterpart: given.chartofaccounts || (sales ? '4000 Sales Revenue' : '5000 Purchases'),
    tax: sales ? '2200 Tax Payable' : '1400 Tax Receivable',
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

/** A credit note is its invoice's entry mirrored: every debit becomes a credit. */
function mirror(lines: JournalLine[]): JournalLine[] {
  return lines.map((l) => ({ ...l, debit: l.credit, credit: l.debit }));
}

/**
 * The posting of a validated document: receivable/payable against revenue/expense and tax.
 * Zero amounts (no tax, say) make no line.
 */
export function invoiceEntryLines(
  type: InvoiceType,
  amounts: { subtotal: DecimalLike; tax_amount: DecimalLike; total: DecimalLike },
  accounts: InvoiceAccounts,
): JournalLine[] {
  const sales = [
    dr(accounts.trade, amounts.total, 'Receivable'),
    cr(accounts.counterpart, amounts.subtotal, 'Revenue'),
    cr(accounts.tax, amounts.tax_amount, 'Tax'),
  ];
  const purchase = [
    dr(accounts.counterpart, amounts.subtotal, 'Expense'),
    dr(accounts.tax, amounts.tax_amount, 'Tax'),
    cr(accounts.trade, amounts.total, 'Payable'),
  ];
  const lines = { invoiceout: sales, creditout: mirror(sales), invoicein: purchase, creditin: mirror(purchase) }[type];
  return lines.filter((l) => !l.debit.isZero() || !l.credit.isZero());
}

/** A payment settles the trade account against the bank: money in for sales and vendor credits, out otherwise. */
export function paymentEntryLines(type: InvoiceType, amount: DecimalLike, tradeAccount: string, bankAccount: string): JournalLine[] {
  const moneyIn = type === 'invoiceout' || type === 'creditin';
  return moneyIn
    ? [dr(bankAccount, amount, 'Payment received'), cr(tradeAccount, amount, 'Settlement')]
    : [dr(tradeAccount, amount, 'Settlement'), cr(bankAccount, amount, 'Payment sent')];
}

export function isBalanced(lines: JournalLine[]): boolean {
  return sum(lines.map((l) => l.debit)).equals(sum(lines.map((l) => l.credit)));
}
