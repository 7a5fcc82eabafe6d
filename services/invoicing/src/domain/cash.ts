import { invoicing } from '@bo/contracts';
import { amountText, dec, finerThanCurrency, roundTo, sum, type Dec, type DecimalLike } from '@bo/kernel';
import { CREDITED_TYPE, isCreditNote } from './credit-note';
import { accountsFor, cr, dr, tradeLine, type JournalLine } from './journal';
import { effectiveStatus, type StoredStatus } from './status';

type InvoiceType = invoicing.InvoiceType;
type Direction = invoicing.PaymentDirection;

/**
 * Which way money moves when a document is settled in cash: a customer invoice and a vendor credit
 * are paid in, a vendor bill and a customer credit note (a refund) out. `register_payment` settles
 * any type this way; a payment made with `create` settles only invoices (in: `invoiceout`, out:
 * `invoicein`), credit notes being credit themselves.
 */
export function settlementDirection(type: InvoiceType): Direction {
  return type === 'invoiceout' || type === 'creditin' ? 'in' : 'out';
}

/**
 * Whether cash settles what the partner owes as a customer (its receivable) or as a vendor: by the
 * document it settles when it names one (a refund of a customer credit note is the customer's), else
 * by its direction (money in is a customer's).
 */
export function ledgerSide(direction: Direction, settledType?: InvoiceType): 'customer' | 'vendor' {
  if (settledType) return invoicing.receivableSign[settledType] !== 0 ? 'customer' : 'vendor';
  return direction === 'in' ? 'customer' : 'vendor';
}

/** What a payment of this direction settles through `create` or `allocate`. */
export const INVOICE_OF_DIRECTION: Record<Direction, 'invoiceout' | 'invoicein'> = { in: 'invoiceout', out: 'invoicein' };

/** The trade account a source's unallocated credit sits on when no document names one: receivable for money in, payable for money out. */
export function defaultTradeAccount(direction: Direction): string {
  return accountsFor(INVOICE_OF_DIRECTION[direction], {}).trade;
}

export const BAD_DEBTS_ACCOUNT = '6800 Bad Debts';
/** Realized exchange differences (docs/invoicing.md "Payments in another currency"): a gain is income, a loss an expense. */
export const EXCHANGE_GAINS_ACCOUNT = '7700 Exchange Gains';
export const EXCHANGE_LOSSES_ACCOUNT = '6700 Exchange Losses';

/**
 * What an item of the books (a validated document, a payment) is worth in the accounting currency:
 * `amount` in its own currency was booked as `booked` (its entry's trade or bank line), amounts of
 * the accounting currency having `places` decimals. Posted as it is (no conversion), both are equal.
 */
export interface BookedValue {
  amount: DecimalLike;
  booked: DecimalLike;
  places: number;
}

/** An item posted as it is: worth its own amount. */
export function unconverted(amount: DecimalLike): BookedValue {
  return { amount, booked: amount, places: 2 };
}

/**
 * What the first `share` of an item is worth in the accounting currency: in proportion to what it
 * booked, rounded, and exactly `booked` for the whole of it. Settling or using up an item piece by
 * piece moves its trade account by `valueOfStep` of each piece: the steps telescope, so once it is
 * all settled its account has moved by exactly what it booked, whatever the pieces' rounding.
 */
export function valueOfShare(item: BookedValue, share: DecimalLike): Dec {
  const amount = dec(item.amount);
  const booked = dec(item.booked);
  const part = dec(share);
  if (booked.equals(amount) || amount.isZero()) return part;
  if (part.equals(amount)) return booked;
  return roundTo(part.times(booked).div(amount), item.places);
}

/** The value of the piece of an item from `from` to `to` of its amount (negative going back). */
export function valueOfStep(item: BookedValue, from: DecimalLike, to: DecimalLike): Dec {
  return valueOfShare(item, to).minus(valueOfShare(item, from));
}

/**
 * The realized exchange difference that balances cash lines valued at different rates (the bank or
 * the credit used at the payment's, the documents cleared at their own): debits beyond the credits
 * are a gain (credited to exchange gains), credits beyond the debits a loss (debited to exchange
 * losses). Lines that balance get nothing.
 */
export function withExchangeDifference(lines: JournalLine[]): JournalLine[] {
  // A piece worth nothing in the accounting currency (a cent at a rate of 0.01) makes no line.
  const posted = lines.filter((l) => !l.debit.isZero() || !l.credit.isZero());
  const difference = sum(posted.map((l) => l.debit)).minus(sum(posted.map((l) => l.credit)));
  if (difference.isZero()) return posted;
  return difference.isPositive()
    ? [...posted, cr(EXCHANGE_GAINS_ACCOUNT, difference, 'Exchange gain')]
    : [...posted, dr(EXCHANGE_LOSSES_ACCOUNT, difference.neg(), 'Exchange loss')];
}

/** A document as allocation judges it. */
export interface SettleableDocument {
  id: number;
  invoicenumber: string;
  invoicetype: InvoiceType;
  partner_id: number;
  invoicestatus: StoredStatus;
  invoicedue: string | null;
  invoicetotal: string;
  amount_paid: string;
  written_off_amount: string;
  currency: string | null;
}

/** What a payment or credit note may give, and to whom. */
export interface CreditSource {
  partner_id: number;
  /** The document type the source settles. */
  settles: 'invoiceout' | 'invoicein';
  currency: string | null;
  unallocated: DecimalLike;
  /** The request field a sum beyond `unallocated` is refused on. */
  amountField: string;
  label: string;
}

export interface Refusal {
  code: 'validation_failed' | 'invalid_state' | 'not_found';
  field: string;
  message: string;
}

/**
 * Cash in `currency` moves in its minor unit: 1.234 is a BHD amount but no EUR one, and a yen has no
 * cents. A currency the kernel does not know (none is stored: each is checked when made) takes 2.
 */
export function minorUnitRefusal(field: string, amount: DecimalLike, currency: string | null): Refusal | null {
  const message = finerThanCurrency(field, amount, currency);
  return message ? { code: 'validation_failed', field, message } : null;
}

export function dueOfDocument(doc: Pick<SettleableDocument, 'invoicetotal' | 'amount_paid' | 'written_off_amount'>): Dec {
  return dec(doc.invoicetotal).minus(dec(doc.amount_paid)).minus(dec(doc.written_off_amount));
}

/**
 * Judges allocations of a source's credit to documents, every problem at once, each naming its field
 * (`allocations.<n>.invoice_id`, `allocations.<n>.amount`, `currency`, the source's amount field):
 * the document must exist in the organization, be the source partner's, of the type the source
 * settles, open or overdue, in the source's currency (a document without a currency takes any), named
 * once; each amount at most its due, and together at most the source's unallocated amount.
 */
export function allocationRefusals(
  source: CreditSource,
  requested: ReadonlyArray<{ invoice_id: number; amount: DecimalLike }>,
  documents: ReadonlyMap<number, SettleableDocument>,
  today: string,
): Refusal[] {
  const refusals: Refusal[] = [];
  const seen = new Set<number>();
  requested.forEach((a, n) => {
    const field = `allocations.${n}.invoice_id`;
    const doc = documents.get(a.invoice_id);
    if (!doc) return refusals.push({ code: 'not_found', field, message: `Invoice ${a.invoice_id} not found` });
    if (seen.has(doc.id)) return refusals.push({ code: 'validation_failed', field, message: `${doc.invoicenumber} is named twice` });
    seen.add(doc.id);
    if (doc.partner_id !== source.partner_id) {
      return refusals.push({
        code: 'validation_failed',
        field,
        message: `${doc.invoicenumber} is partner ${doc.partner_id}'s; ${source.label} is partner ${source.partner_id}'s`,
      });
    }
    if (doc.invoicetype !== source.settles) {
      return refusals.push({
        code: 'validation_failed',
        field,
        message: `${source.label} settles ${source.settles} documents; ${doc.invoicenumber} is an ${doc.invoicetype}`,
      });
    }
    const status = effectiveStatus(doc.invoicestatus, doc.invoicedue, today);
    if (status !== 'open' && status !== 'overdue') {
      return refusals.push({
        code: 'invalid_state',
        field,
        message: `${doc.invoicenumber} is ${status}; only open or overdue documents take allocations`,
      });
    }
    if (doc.currency !== null && source.currency !== null && doc.currency !== source.currency) {
      refusals.push({
        code: 'validation_failed',
        field: 'currency',
        message: `${doc.invoicenumber} is in ${doc.currency}; ${source.label} is in ${source.currency}`,
      });
    }
    const unit = minorUnitRefusal(`allocations.${n}.amount`, a.amount, source.currency ?? doc.currency);
    if (unit) refusals.push(unit);
    const due = dueOfDocument(doc);
    if (dec(a.amount).greaterThan(due)) {
      refusals.push({
        code: 'validation_failed',
        field: `allocations.${n}.amount`,
        message: `${amountText(a.amount)} exceeds the amount due ${amountText(due)} on ${doc.invoicenumber}`,
      });
    }
  });
  const total = sum(requested.map((a) => dec(a.amount)));
  if (total.greaterThan(dec(source.unallocated))) {
    refusals.push({
      code: 'validation_failed',
      field: source.amountField,
      message: `allocations of ${amountText(total)} exceed the ${amountText(source.unallocated)} unallocated on ${source.label}`,
    });
  }
  return refusals;
}

/** The source of a credit note's credit: what it settles, by its type. */
export function creditNoteSettles(type: InvoiceType): 'invoiceout' | 'invoicein' | null {
  return isCreditNote(type) ? CREDITED_TYPE[type] : null;
}

/** What a document's stored status becomes once `paid` of its total is settled. */
export function statusAfterSettlement(
  doc: Pick<SettleableDocument, 'invoicetotal' | 'written_off_amount'>,
  paid: DecimalLike,
): 'open' | 'paid' {
  return dec(paid).plus(dec(doc.written_off_amount)).greaterThanOrEqualTo(dec(doc.invoicetotal)) ? 'paid' : 'open';
}

/** The unallocated rest of a payment: what it still gives as credit. */
export function unallocatedOf(p: { amount: DecimalLike; allocated: DecimalLike; refunded: DecimalLike }): Dec {
  return dec(p.amount).minus(dec(p.allocated)).minus(dec(p.refunded));
}

/** Amounts per account, in the order the accounts first appear, zeros dropped. */
function byAccount(parts: ReadonlyArray<{ account: string; amount: DecimalLike }>): Array<{ account: string; amount: Dec }> {
  const totals = new Map<string, Dec>();
  for (const p of parts) totals.set(p.account, (totals.get(p.account) ?? dec(0)).plus(dec(p.amount)));
  return [...totals].filter(([, amount]) => !amount.isZero()).map(([account, amount]) => ({ account, amount }));
}

/**
 * A payment's entry: the bank against the trade accounts it settles. Money in debits the bank and
 * credits each allocated document's trade account by its part and the default receivable by the
 * unallocated rest (the partner's credit sits there until allocated); money out the reverse. In
 * another currency than the books' the bank takes the payment's worth at its rate, each part the
 * document's worth at the document's, the rest the credit's worth at the payment's (`rest`, default:
 * what the parts leave), and what is left between them is the realized exchange difference.
 */
export function paymentLines(
  direction: Direction,
  amount: DecimalLike,
  bank: string,
  parts: ReadonlyArray<{ account: string; amount: DecimalLike }>,
  rest: DecimalLike = dec(amount).minus(sum(parts.map((p) => dec(p.amount)))),
): JournalLine[] {
  const trade = byAccount([...parts, { account: defaultTradeAccount(direction), amount: rest }]);
  return withExchangeDifference(
    direction === 'in'
      ? [dr(bank, amount, 'Payment received'), ...trade.map((t) => tradeLine(cr(t.account, t.amount, 'Settlement')))]
      : [...trade.map((t) => tradeLine(dr(t.account, t.amount, 'Settlement'))), cr(bank, amount, 'Payment sent')],
  );
}

/** A payment's reversal: its entry as it stands at the void (allocations, rest and exchange difference), mirrored. */
export function voidLines(
  direction: Direction,
  amount: DecimalLike,
  bank: string,
  parts: ReadonlyArray<{ account: string; amount: DecimalLike }>,
  rest?: DecimalLike,
): JournalLine[] {
  return paymentLines(direction, amount, bank, parts, rest).map((l) => ({
    ...l,
    debit: l.credit,
    credit: l.debit,
    label: `Void: ${l.label}`,
  }));
}

/**
 * An allocation as the books see it, always its own entry (docs/invoicing.md "One ledger"): the
 * credit used, worth `from.value` at its source's rate (a payment's, a credit note's), comes off its
 * trade account, and the document cleared, worth `to.value` at the document's, off its own; the two
 * lines stand apart even on one account, so every trade line names what it settles. What the two
 * values differ by is the realized exchange difference.
 */
export function allocationLines(
  settles: 'invoiceout' | 'invoicein',
  from: { account: string; value: DecimalLike },
  to: { account: string; value: DecimalLike },
): JournalLine[] {
  // A receivable's credit is debited away and the invoice credited; a payable the other way round.
  return withExchangeDifference(
    settles === 'invoiceout'
      ? [tradeLine(dr(from.account, from.value, 'Credit applied')), tradeLine(cr(to.account, to.value, 'Settlement'))]
      : [tradeLine(dr(to.account, to.value, 'Settlement')), tradeLine(cr(from.account, from.value, 'Credit applied'))],
  );
}

/**
 * A refund pays a partner's credit back: a customer's (receivable side) goes out of the bank, a
 * vendor's (payable side) comes in. The trade account takes the credit's worth as booked
 * (`value.credit`), the bank what the money paid out was worth that day (`value.paid`); what they
 * differ by is the realized exchange difference, as on a payment.
 */
export function refundLines(
  refundDirection: Direction,
  value: { credit: DecimalLike; paid: DecimalLike },
  tradeAccount: string,
  bank: string,
): JournalLine[] {
  return withExchangeDifference(
    refundDirection === 'out'
      ? [tradeLine(dr(tradeAccount, value.credit, 'Credit refunded')), cr(bank, value.paid, 'Refund sent')]
      : [dr(bank, value.paid, 'Refund received'), tradeLine(cr(tradeAccount, value.credit, 'Credit refunded'))],
  );
}

/** A bad debt: the expense against the receivable it will never collect. */
export function writeOffLines(amount: DecimalLike, tradeAccount: string): JournalLine[] {
  return [dr(BAD_DEBTS_ACCOUNT, amount, 'Bad debt'), tradeLine(cr(tradeAccount, amount, 'Written off'))];
}

/** Why this document may not be written off, or null: an open or overdue customer invoice with something due. */
export function writeOffRefusal(doc: SettleableDocument, today: string): string | null {
  const status = effectiveStatus(doc.invoicestatus, doc.invoicedue, today);
  if (doc.invoicetype !== 'invoiceout')
    return `${doc.invoicenumber} is an ${doc.invoicetype}; only a customer invoice (invoiceout) is written off as a bad debt`;
  if (status !== 'open' && status !== 'overdue')
    return `${doc.invoicenumber} is ${status}; only an open or overdue invoice can be written off`;
  if (!dueOfDocument(doc).greaterThan(0)) return `nothing is due on ${doc.invoicenumber}`;
  return null;
}
