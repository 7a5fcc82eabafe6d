import type { invoicing } from '@bo/contracts';
import { dec, type Dec } from '@bo/kernel';
import { ledgerSide, valueOfStep, type BookedValue } from '../domain/cash';
import type { LedgerAllocation, LedgerDocument, LedgerHistory, LedgerPayment, LedgerRefund } from './history';

/**
 * The one ledger every view of money reads (docs/invoicing.md, "One ledger"): the trade accounts'
 * postings replayed in posting order (by journal entry), each valued in the accounting currency with
 * the function the posting used (domain/cash.ts valueOfStep), so what it answers is the journal's
 * trade lines to the minor unit.
 *
 * Each document and payment is an *item* on one side of a partner's account (`customer`: its
 * receivable; `vendor`: what is owed to it), with a sign: +1 when it raises that balance (an invoice,
 * a bill, money paid out to a customer), −1 when it lowers it (a credit note, money received from a
 * customer, money paid to a vendor). Every posting is a dated *movement* of items' open amounts, in
 * the item's currency and in the accounting currency; an item's open amount on a day is the sum of
 * its movements dated by then, and the partner's balance Σ sign × open. A settlement takes its share
 * of what the item booked (cumulatively, so the last one takes the remainder and a settled item is
 * exactly 0). Cash worth more or less than what it clears realizes an exchange difference, kept as a
 * movement of its own.
 */

export type Side = 'customer' | 'vendor';
export type ItemKey = `d${number}` | `p${number}`;

export interface Item {
  key: ItemKey;
  kind: 'document' | 'payment';
  id: number;
  partner_id: number;
  side: Side;
  sign: 1 | -1;
  date: string;
  currency: string | null;
  amount: Dec;
  /** What it booked on its trade account (a document) or its bank line (a payment), in the accounting currency. */
  worth: BookedValue;
  document?: LedgerDocument;
  payment?: LedgerPayment;
}

/** A dated change of one item's open amount, in its own currency and in the accounting currency. */
export interface ItemChange {
  key: ItemKey;
  date: string;
  own: Dec;
  accounting: Dec;
}

export type MovementKind = Exclude<invoicing.StatementLine['kind'], 'exchange_difference'>;

/**
 * One posting as a statement lists it: `cash`, what the line states (a document's booked total, the
 * money of a payment, refund or void, nothing for an allocation), and `realized`, what its trade
 * lines moved beyond that (the exchange difference); both signed as they move the balance.
 */
export interface Movement {
  kind: MovementKind;
  id: number;
  date: string;
  seq: number;
  partner_id: number;
  side: Side;
  /** The item it is listed under (an allocation's: its source), and for an allocation the document settled. */
  item: Item;
  target?: Item;
  amount_currency: Dec;
  cash: Dec;
  realized: Dec;
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

const later = (...dates: string[]) => dates.reduce((a, b) => (a > b ? a : b));

/** A posting waiting its turn: by entry, then the entry's own item before what it allocates, then id. */
interface Step {
  seq: number;
  rank: number;
  id: number;
  run: () => void;
}

export class Ledger {
  readonly items = new Map<ItemKey, Item>();
  readonly changes: ItemChange[] = [];
  readonly movements: Movement[] = [];
  /** What of each item is settled so far in its own currency (allocated, refunded, written off), as the replay goes. */
  private readonly settled = new Map<ItemKey, Dec>();

  constructor(history: LedgerHistory, places: number) {
    const steps: Step[] = [];
    for (const d of history.documents) {
      const item = this.addDocument(d, places);
      steps.push({ seq: d.seq, rank: 0, id: d.id, run: () => this.post(item, 'invoice') });
      const w = d.write_off;
      if (w) steps.push({ seq: w.seq, rank: 0, id: d.id, run: () => this.writeOff(item, dec(w.amount), w.date, w.seq) });
    }
    for (const p of history.payments) {
      const item = this.addPayment(p, places);
      steps.push({ seq: p.seq, rank: 0, id: p.id, run: () => this.post(item, 'payment') });
    }
    const byPayment = new Map<number, Array<{ allocation: LedgerAllocation; target: Item }>>();
    for (const a of history.allocations) {
      const source = this.items.get(a.payment_id !== null ? `p${a.payment_id}` : `d${a.credit_note_id as number}`);
      const target = this.items.get(`d${a.invoice_id}`);
      // A history of the items open on a day (history.ts `openOn`) may hold one side only: it is settled all the same.
      if (!source || !target) {
        const side = source ?? target;
        if (side) steps.push({ seq: a.seq, rank: 1, id: a.id, run: () => this.settleOneSide(a, side) });
        continue;
      }
      steps.push({ seq: a.seq, rank: 1, id: a.id, run: () => this.allocate(a, source, target) });
      if (a.voided && a.payment_id !== null) {
        const list = byPayment.get(a.payment_id) ?? [];
        list.push({ allocation: a, target });
        byPayment.set(a.payment_id, list);
      }
    }
    for (const r of history.refunds) {
      const source = this.items.get(r.payment_id !== null ? `p${r.payment_id}` : `d${r.credit_note_id as number}`);
      if (source) steps.push({ seq: r.seq, rank: 2, id: r.id, run: () => this.refund(r, source) });
    }
    for (const p of history.payments) {
      const v = p.void;
      if (!v) continue;
      const item = this.items.get(`p${p.id}`) as Item;
      const undone = (byPayment.get(p.id) ?? []).sort((a, b) => a.allocation.id - b.allocation.id);
      steps.push({ seq: v.seq, rank: 3, id: p.id, run: () => this.voidPayment(item, undone, v.date, v.seq) });
    }
    steps.sort((a, b) => a.seq - b.seq || a.rank - b.rank || a.id - b.id);
    for (const s of steps) s.run();
  }

  private addDocument(d: LedgerDocument, places: number): Item {
    const amount = dec(d.total);
    const item: Item = {
      key: `d${d.id}`,
      kind: 'document',
      id: d.id,
      partner_id: d.partner_id,
      side: documentSide(d.invoicetype),
      sign: CREDIT_TYPES.has(d.invoicetype) ? -1 : 1,
      date: d.date,
      currency: d.currency,
      amount,
      // Parsed once: every settlement values a share of it (valueOfStep).
      worth: { amount, booked: dec(d.booked), places },
      document: d,
    };
    this.items.set(item.key, item);
    return item;
  }

  private addPayment(p: LedgerPayment, places: number): Item {
    const side = ledgerSide(p.direction, p.settled_type ?? undefined);
    const amount = dec(p.amount);
    const item: Item = {
      key: `p${p.id}`,
      kind: 'payment',
      id: p.id,
      partner_id: p.partner_id,
      side,
      sign: paymentSign(side, p.direction),
      date: p.date,
      currency: p.currency,
      amount,
      worth: { amount, booked: dec(p.accounting_amount), places },
      payment: p,
    };
    this.items.set(item.key, item);
    return item;
  }

  private change(item: Item, date: string, own: Dec, accounting: Dec) {
    this.changes.push({ key: item.key, date, own, accounting });
  }

  /** Settles `amount` more of an item (negative: undoes it): what that share of it is worth, as the posting valued it. */
  private settle(item: Item, amount: Dec): Dec {
    const from = this.settled.get(item.key) ?? dec(0);
    const to = from.plus(amount);
    this.settled.set(item.key, to);
    return valueOfStep(item.worth, from, to);
  }

  private record(m: Omit<Movement, 'partner_id' | 'side'>) {
    this.movements.push({ ...m, partner_id: m.item.partner_id, side: m.item.side });
  }

  private post(item: Item, kind: 'invoice' | 'payment') {
    const booked = dec(item.worth.booked);
    this.change(item, item.date, item.amount, booked);
    const seq = item.document?.seq ?? (item.payment as LedgerPayment).seq;
    const listed = item.kind === 'payment' ? 'payment' : item.sign === 1 ? kind : 'credit_note';
    this.record({
      kind: listed,
      id: item.id,
      date: item.date,
      seq,
      item,
      amount_currency: item.amount,
      cash: booked.times(item.sign),
      realized: dec(0),
    });
  }

  private allocate(a: LedgerAllocation, source: Item, target: Item) {
    const amount = dec(a.amount);
    const date = later(a.date, source.date, target.date);
    const used = this.settle(source, amount);
    const cleared = this.settle(target, amount);
    this.change(source, date, amount.neg(), used.neg());
    this.change(target, date, amount.neg(), cleared.neg());
    this.record({
      kind: 'allocation',
      id: a.id,
      date,
      seq: a.seq,
      item: source,
      target,
      amount_currency: amount,
      cash: dec(0),
      // The credit used lowers the source's open value, the document cleared the target's: what they differ by is realized.
      realized: used.times(-source.sign).minus(cleared.times(target.sign)),
    });
  }

  /** An allocation whose other side the history left out: its movement is kept for the side present, no statement line. */
  private settleOneSide(a: LedgerAllocation, item: Item) {
    const amount = dec(a.amount);
    const worth = this.settle(item, amount);
    this.change(item, later(a.date, item.date), amount.neg(), worth.neg());
  }

  private refund(r: LedgerRefund, source: Item) {
    const amount = dec(r.amount);
    const worth = this.settle(source, amount);
    this.change(source, r.date, amount.neg(), worth.neg());
    const moved = worth.times(-source.sign);
    const cash = dec(r.accounting_amount).times(-source.sign);
    this.record({
      kind: 'refund',
      id: r.id,
      date: r.date,
      seq: r.seq,
      item: source,
      amount_currency: amount,
      cash,
      realized: moved.minus(cash),
    });
  }

  private writeOff(item: Item, amount: Dec, date: string, seq: number) {
    const worth = this.settle(item, amount);
    this.change(item, date, amount.neg(), worth.neg());
    const moved = worth.times(-item.sign);
    this.record({ kind: 'write_off', id: item.id, date, seq, item, amount_currency: amount, cash: moved, realized: dec(0) });
  }

  /**
   * A void reverses the payment as it stands: each allocation it made is undone at the document's
   * worth (the documents owe again), and the credit it still gave leaves with it. The money goes back
   * at the payment's worth; what the allocations realized is reversed with it.
   */
  private voidPayment(payment: Item, undone: Array<{ allocation: LedgerAllocation; target: Item }>, date: string, seq: number) {
    let moved = dec(0);
    for (const { allocation, target } of undone) {
      const amount = dec(allocation.amount);
      const restored = this.settle(target, amount.neg()).neg();
      this.change(target, date, amount, restored);
      moved = moved.plus(restored.times(target.sign));
    }
    const ownLeft = payment.amount.minus(this.settled.get(payment.key) ?? dec(0));
    const worthLeft = this.settle(payment, ownLeft);
    this.change(payment, date, ownLeft.neg(), worthLeft.neg());
    moved = moved.minus(worthLeft.times(payment.sign));
    const cash = dec(payment.worth.booked).times(-payment.sign);
    this.record({
      kind: 'void',
      id: payment.id,
      date,
      seq,
      item: payment,
      amount_currency: payment.amount,
      cash,
      realized: moved.minus(cash),
    });
  }

  /** Every item's open amount at the end of `asOf`, in its own currency and the accounting currency (items not dated by then absent). */
  openOn(asOf: string): Map<ItemKey, { own: Dec; accounting: Dec }> {
    const open = new Map<ItemKey, { own: Dec; accounting: Dec }>();
    for (const c of this.changes) {
      if (c.date > asOf) continue;
      const o = open.get(c.key) ?? { own: dec(0), accounting: dec(0) };
      open.set(c.key, { own: o.own.plus(c.own), accounting: o.accounting.plus(c.accounting) });
    }
    return open;
  }
}
