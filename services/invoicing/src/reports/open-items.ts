import type { invoicing } from '@bo/contracts';
import { dec, roundTo, sum, toNumber, type Dec } from '@bo/kernel';
import { ledgerSide } from '../domain/cash';

/**
 * The books as dated history (docs/invoicing.md, "Aged balances"): every document, payment,
 * allocation, refund, void and write-off with the day it took effect, from which what was open on any
 * day is reconstructed, whatever happened later. Pure: cash-history.ts reads the rows, the reports
 * lay the figures out.
 *
 * Each document and payment is an *item* on one side of a partner's account (`customer`: its
 * receivable; `vendor`: what is owed to it), with a sign: +1 when it raises that balance (an invoice,
 * a bill, money paid out to a customer), −1 when it lowers it (a credit note, money received from a
 * customer, money paid to a vendor). An item's *open* amount on a day is what of it the books still
 * carried: its amount once dated, less what allocations, refunds, a void and a write-off dated by then
 * took. The balance is Σ sign × open. Every movement that posts to a trade account counts on its own
 * journal date, so the balance on a day is the trade accounts' balance of the journal up to that day;
 * an allocation posts nothing there, so it counts from the latest of its own date, its document's and
 * its source's (an allocation dated before the payment it uses never makes either negative).
 */

export type Side = 'customer' | 'vendor';

export interface HistoryDocument {
  id: number;
  invoicenumber: string;
  invoicetype: invoicing.InvoiceType;
  partner_id: number;
  /** The date of its journal entry. */
  date: string;
  invoicedue: string | null;
  total: string;
  currency: string | null;
  /** What its entry posted on its trade account: the total in the accounting currency. */
  accounting_total: string;
  written_off_amount: string;
  write_off_date: string | null;
}

export interface HistoryPayment {
  id: number;
  partner_id: number;
  direction: invoicing.PaymentDirection;
  amount: string;
  currency: string | null;
  date: string;
  reference: string | null;
  /** The bank line of its entry: the amount in the accounting currency. */
  accounting_amount: string;
  /** The void's date when it is voided. */
  void_date: string | null;
  /** The type of the first document it was allocated to, which decides its side (domain/cash.ts ledgerSide). */
  settled_type: invoicing.InvoiceType | null;
}

export interface HistoryAllocation {
  id: number;
  payment_id: number | null;
  credit_note_id: number | null;
  invoice_id: number;
  amount: string;
  date: string;
  /** The void of its payment, when it was voided. */
  void_date: string | null;
}

export interface HistoryRefund {
  id: number;
  payment_id: number | null;
  credit_note_id: number | null;
  amount: string;
  date: string;
}

export interface BookHistory {
  documents: HistoryDocument[];
  payments: HistoryPayment[];
  allocations: HistoryAllocation[];
  refunds: HistoryRefund[];
}

export type ItemKey = `d${number}` | `p${number}`;

export interface Item {
  key: ItemKey;
  kind: 'document' | 'payment';
  id: number;
  partner_id: number;
  side: Side;
  sign: 1 | -1;
  date: string;
  amount: Dec;
  /** Accounting-currency units per unit of the item's own (1 when both are the same). */
  rate: Dec;
  currency: string | null;
  document?: HistoryDocument;
  payment?: HistoryPayment;
}

/** A dated change of one item's open amount (always a reduction but for the item's own dating). */
interface Change {
  key: ItemKey;
  date: string;
  /** Signed change of the item's open amount. */
  open: Dec;
}

const RECEIVABLE_TYPES: ReadonlySet<invoicing.InvoiceType> = new Set(['invoiceout', 'creditout']);
const CREDIT_TYPES: ReadonlySet<invoicing.InvoiceType> = new Set(['creditout', 'creditin']);

export function documentSide(type: invoicing.InvoiceType): Side {
  return RECEIVABLE_TYPES.has(type) ? 'customer' : 'vendor';
}

/** Cash out raises a customer's balance and lowers what is owed to a vendor; cash in the reverse. */
function paymentSign(side: Side, direction: invoicing.PaymentDirection): 1 | -1 {
  return (side === 'customer') === (direction === 'out') ? 1 : -1;
}

function rateOf(amount: string, accounting: string): Dec {
  const a = dec(amount);
  return a.isZero() ? dec(1) : dec(accounting).dividedBy(a);
}

const later = (...dates: string[]) => dates.reduce((a, b) => (a > b ? a : b));

/** The history's items and every dated change of their open amounts. */
export class OpenItems {
  readonly items = new Map<ItemKey, Item>();
  private readonly changes: Change[] = [];
  /** Allocations with the day they count from, those whose payment was voided before that day left out. */
  readonly allocations: Array<HistoryAllocation & { effective: string; source: ItemKey; target: ItemKey }> = [];
  readonly refunds: Array<HistoryRefund & { source: ItemKey }> = [];

  constructor(history: BookHistory) {
    for (const d of history.documents) {
      const key: ItemKey = `d${d.id}`;
      this.items.set(key, {
        key,
        kind: 'document',
        id: d.id,
        partner_id: d.partner_id,
        side: documentSide(d.invoicetype),
        sign: CREDIT_TYPES.has(d.invoicetype) ? -1 : 1,
        date: d.date,
        amount: dec(d.total),
        rate: rateOf(d.total, d.accounting_total),
        currency: d.currency,
        document: d,
      });
      this.changes.push({ key, date: d.date, open: dec(d.total) });
      if (d.write_off_date && dec(d.written_off_amount).greaterThan(0))
        this.changes.push({ key, date: d.write_off_date, open: dec(d.written_off_amount).neg() });
    }
    for (const p of history.payments) {
      const key: ItemKey = `p${p.id}`;
      const side = ledgerSide(p.direction, p.settled_type ?? undefined);
      this.items.set(key, {
        key,
        kind: 'payment',
        id: p.id,
        partner_id: p.partner_id,
        side,
        sign: paymentSign(side, p.direction),
        date: p.date,
        amount: dec(p.amount),
        rate: rateOf(p.amount, p.accounting_amount),
        currency: p.currency,
        payment: p,
      });
      this.changes.push({ key, date: p.date, open: dec(p.amount) });
      // A void reverses the whole payment: it is refused once anything was refunded.
      if (p.void_date) this.changes.push({ key, date: p.void_date, open: dec(p.amount).neg() });
    }
    for (const a of history.allocations) {
      const source: ItemKey = a.payment_id !== null ? `p${a.payment_id}` : `d${a.credit_note_id as number}`;
      const target: ItemKey = `d${a.invoice_id}`;
      const s = this.items.get(source);
      const t = this.items.get(target);
      if (!s || !t) continue;
      const effective = later(a.date, s.date, t.date);
      if (a.void_date !== null && a.void_date <= effective) continue;
      this.allocations.push({ ...a, effective, source, target });
      for (const key of [source, target]) {
        this.changes.push({ key, date: effective, open: dec(a.amount).neg() });
        if (a.void_date !== null) this.changes.push({ key, date: a.void_date, open: dec(a.amount) });
      }
    }
    for (const r of history.refunds) {
      const source: ItemKey = r.payment_id !== null ? `p${r.payment_id}` : `d${r.credit_note_id as number}`;
      if (!this.items.has(source)) continue;
      this.refunds.push({ ...r, source });
      this.changes.push({ key: source, date: r.date, open: dec(r.amount).neg() });
    }
  }

  /** Every item's open amount at the end of `asOf`, in its own currency (items never dated by then absent). */
  openOn(asOf: string): Map<ItemKey, Dec> {
    const open = new Map<ItemKey, Dec>();
    for (const c of this.changes) if (c.date <= asOf) open.set(c.key, (open.get(c.key) ?? dec(0)).plus(c.open));
    return open;
  }
}

/** An amount of an item's currency in the accounting currency, at the rate the item was posted at. */
export function inAccounting(item: Item, amount: Dec, places: number): Dec {
  return item.rate.equals(1) ? amount : roundTo(amount.times(item.rate), places);
}

/** Whole days from `from` to `to` (calendar dates). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

export function agingBucket(daysPastDue: number): invoicing.AgingBucket {
  if (daysPastDue <= 0) return 'current';
  if (daysPastDue <= 30) return '1_30';
  if (daysPastDue <= 60) return '31_60';
  if (daysPastDue <= 90) return '61_90';
  return 'over_90';
}

type Figures = Record<invoicing.AgingBucket | 'unallocated_credit' | 'total', Dec>;
const zeroFigures = (): Figures => ({
  current: dec(0),
  '1_30': dec(0),
  '31_60': dec(0),
  '61_90': dec(0),
  over_90: dec(0),
  unallocated_credit: dec(0),
  total: dec(0),
});
const figuresOut = (f: Figures) => Object.fromEntries(Object.entries(f).map(([k, v]) => [k, toNumber(v)])) as Record<keyof Figures, number>;

/**
 * Aged balances of one side as of a day: per partner (by id) and in total, the documents that raise
 * the balance in buckets by days past due (`invoicedue`, else the document's date), and the credit
 * (payments and credit notes neither allocated nor refunded) apart; `total` = Σ buckets − credit =
 * the partner's balance on that side. In the accounting currency, each item converted on its own.
 */
export function agedBalances(
  book: OpenItems,
  side: Side,
  asOf: string,
  places: number,
  names: ReadonlyMap<number, string>,
): { partners: invoicing.AgedPartnerRow[]; totals: Record<keyof Figures, number> } {
  const open = book.openOn(asOf);
  const rows = new Map<
    number,
    { figures: Figures; documents: invoicing.AgedPartnerRow['documents']; credits: invoicing.AgedPartnerRow['credits'] }
  >();
  const totals = zeroFigures();
  const keys = [...open.keys()].sort((a, b) => a.charAt(0).localeCompare(b.charAt(0)) || Number(a.slice(1)) - Number(b.slice(1)));
  for (const key of keys) {
    const amount = open.get(key) as Dec;
    const item = book.items.get(key) as Item;
    if (item.side !== side || amount.isZero()) continue;
    const row = rows.get(item.partner_id) ?? { figures: zeroFigures(), documents: [], credits: [] };
    rows.set(item.partner_id, row);
    const accounting = inAccounting(item, amount, places);
    const doc = item.document;
    if (doc && item.sign === 1) {
      const due = doc.invoicedue ?? doc.date;
      const days = daysBetween(due, asOf);
      const bucket = agingBucket(days);
      for (const f of [row.figures, totals]) {
        f[bucket] = f[bucket].plus(accounting);
        f.total = f.total.plus(accounting);
      }
      row.documents.push({
        invoice_id: doc.id,
        invoicenumber: doc.invoicenumber,
        date: doc.date,
        due_date: due,
        days_past_due: days,
        bucket,
        currency: doc.currency,
        open_amount_currency: toNumber(amount),
        open_amount: toNumber(accounting),
      });
    } else {
      // Credit: what lowers the balance, so a +1 item here (cash paid out, never allocated) counts negative.
      const credit = item.sign === -1 ? accounting : accounting.neg();
      for (const f of [row.figures, totals]) {
        f.unallocated_credit = f.unallocated_credit.plus(credit);
        f.total = f.total.minus(credit);
      }
      row.credits.push({
        source: item.kind === 'payment' ? 'payment' : 'credit_note',
        payment_id: item.kind === 'payment' ? item.id : null,
        credit_note_id: item.kind === 'document' ? item.id : null,
        reference: item.document?.invoicenumber ?? item.payment?.reference ?? `PAY-${item.id}`,
        date: item.date,
        currency: item.currency,
        unallocated_currency: toNumber(item.sign === -1 ? amount : amount.neg()),
        unallocated: toNumber(credit),
      });
    }
  }
  const partners = [...rows.entries()]
    .sort(([a], [b]) => a - b)
    .map(([partner, r]) => ({
      partner,
      partnername: names.get(partner) ?? null,
      ...figuresOut(r.figures),
      documents: r.documents,
      credits: r.credits,
    }));
  return { partners, totals: figuresOut(totals) };
}

/** One movement of a partner's balance on one side, before the running balance. */
interface Movement {
  date: string;
  /** Order within a day: documents, payments, allocations, refunds, voids, write-offs. */
  rank: number;
  id: number;
  line: Omit<invoicing.StatementLine, 'debit' | 'credit' | 'balance'>;
  /** What it adds to the balance in the accounting currency (negative: takes off). */
  delta: Dec;
}

const RANK: Record<invoicing.StatementLine['kind'], number> = {
  invoice: 0,
  credit_note: 0,
  payment: 1,
  allocation: 2,
  refund: 3,
  void: 4,
  write_off: 5,
};

function itemLabel(item: Item): string {
  return item.document?.invoicenumber ?? `PAY-${item.id}${item.payment?.reference ? ` ${item.payment.reference}` : ''}`;
}

/**
 * A statement of one side of one partner's account over a period: the balance at the end of the day
 * before `dateFrom`, every movement dated in the period in order with the running balance, and the
 * balance at the end of `dateTo` (its aged receivables' or payables' `total` that day). An allocation
 * moves no balance (it matches a credit against a document of the same partner) but is listed with
 * the amount applied.
 */
export function statementOf(
  book: OpenItems,
  partner: number,
  side: Side,
  dateFrom: string,
  dateTo: string,
  places: number,
): { opening_balance: number; lines: invoicing.StatementLine[]; closing_balance: number } {
  const mine = (key: ItemKey) => {
    const item = book.items.get(key);
    return item && item.partner_id === partner && item.side === side ? item : undefined;
  };
  const movements: Movement[] = [];
  const ids = (item: Item) => ({
    invoice_id: item.document && item.sign === 1 ? item.id : null,
    payment_id: item.kind === 'payment' ? item.id : null,
    credit_note_id: item.document && item.sign === -1 ? item.id : null,
  });
  const move = (item: Item, kind: invoicing.StatementLine['kind'], date: string, id: number, amount: Dec, direction: 1 | -1) =>
    movements.push({
      date,
      rank: RANK[kind],
      id,
      line: { date, kind, reference: itemLabel(item), ...ids(item), currency: item.currency, amount_currency: toNumber(amount) },
      delta: inAccounting(item, amount, places).times(direction),
    });
  for (const item of book.items.values()) {
    if (item.partner_id !== partner || item.side !== side) continue;
    const doc = item.document;
    if (doc) {
      move(item, item.sign === 1 ? 'invoice' : 'credit_note', item.date, item.id, item.amount, item.sign);
      if (doc.write_off_date && dec(doc.written_off_amount).greaterThan(0))
        move(item, 'write_off', doc.write_off_date, item.id, dec(doc.written_off_amount), -item.sign as 1 | -1);
    } else {
      move(item, 'payment', item.date, item.id, item.amount, item.sign);
      if (item.payment?.void_date) move(item, 'void', item.payment.void_date, item.id, item.amount, -item.sign as 1 | -1);
    }
  }
  for (const r of book.refunds) {
    const item = mine(r.source);
    if (item) move(item, 'refund', r.date, r.id, dec(r.amount), -item.sign as 1 | -1);
  }
  for (const a of book.allocations) {
    const source = mine(a.source);
    const target = book.items.get(a.target);
    if (!source || !target) continue;
    movements.push({
      date: a.effective,
      rank: RANK.allocation,
      id: a.id,
      line: {
        date: a.effective,
        kind: 'allocation',
        reference: `${itemLabel(source)} → ${itemLabel(target)}`,
        invoice_id: target.id,
        payment_id: a.payment_id,
        credit_note_id: a.credit_note_id,
        currency: target.currency,
        amount_currency: toNumber(a.amount),
      },
      delta: dec(0),
    });
  }
  movements.sort((a, b) => a.date.localeCompare(b.date) || a.rank - b.rank || a.id - b.id);
  const opening = sum(movements.filter((m) => m.date < dateFrom).map((m) => m.delta));
  let balance = opening;
  const lines: invoicing.StatementLine[] = [];
  for (const m of movements) {
    if (m.date < dateFrom || m.date > dateTo) continue;
    balance = balance.plus(m.delta);
    const raised = toNumber(m.delta.greaterThan(0) ? m.delta : dec(0));
    const lowered = toNumber(m.delta.lessThan(0) ? m.delta.neg() : dec(0));
    // The trade account's columns: a receivable rises by debits, a payable by credits.
    const [debit, credit] = side === 'customer' ? [raised, lowered] : [lowered, raised];
    lines.push({ ...m.line, debit, credit, balance: toNumber(balance) });
  }
  return { opening_balance: toNumber(opening), lines, closing_balance: toNumber(balance) };
}
