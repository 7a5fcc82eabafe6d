import type { invoicing } from '@bo/contracts';
import { dec, type Dec, type DecimalLike } from '@bo/kernel';
import { defaultTradeAccount, dueOfDocument, unconverted, valueOfStep, type BookedValue } from '../domain/cash';
import { accountsFor } from '../domain/journal';
import type { InvoiceRow } from '../invoice/invoice.record';
import type { PaymentRow } from './payment.record';

/**
 * What a payment's or a credit note's credit and a document's settlement are worth, and on which
 * account they sit: pure arithmetic over stored rows (the values themselves: domain/cash.ts).
 */

/** Where a source's credit sits: a payment's rest on the default trade account, a credit note's on its own. */
export function sourceAccount(
  source: { kind: 'payment'; direction: invoicing.PaymentDirection } | { kind: 'credit_note'; note: InvoiceRow },
): string {
  return source.kind === 'payment' ? defaultTradeAccount(source.direction) : accountsFor(source.note.invoicetype, source.note).trade;
}

/** How much of a document is settled one way or another: paid (allocated, refunded for a credit note) or written off. */
export function settledShare(doc: Pick<InvoiceRow, 'amount_paid' | 'written_off_amount'>): Dec {
  return dec(doc.amount_paid).plus(dec(doc.written_off_amount));
}

/**
 * What settling `amount` more of a document (negative: undoing it) moves its trade account by in the
 * accounting currency: the step of its booked value from what is settled now.
 */
export function documentStep(
  doc: Pick<InvoiceRow, 'id' | 'invoicetotal' | 'amount_paid' | 'written_off_amount'>,
  booked: ReadonlyMap<number, BookedValue>,
  amount: DecimalLike,
): Dec {
  const from = settledShare(doc);
  return valueOfStep(booked.get(doc.id) ?? unconverted(doc.invoicetotal), from, from.plus(dec(amount)));
}

/** What a payment is worth in the accounting currency, to use its credit up in proportion. */
export function paymentValue(p: Pick<PaymentRow, 'amount' | 'accounting_amount'>, places: number): BookedValue {
  return { amount: p.amount, booked: p.accounting_amount ?? p.amount, places };
}

/** A credit note's unallocated credit: what is neither allocated nor refunded (its due amount). */
export function creditNoteUnallocated(note: InvoiceRow) {
  return dueOfDocument(note);
}
