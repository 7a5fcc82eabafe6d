import type { EventDataOf, invoicing, ReplyOf, RequestOf } from '@bo/contracts';
import { amountText, dec, formatDate, toNumber } from '@bo/kernel';
import { nowIn, type OrganizationSettings } from '@bo/billing';
import {
  ledgerSide,
  minorUnitRefusal,
  refundLines,
  settlementDirection,
  statusAfterSettlement,
  unallocatedOf,
  valueOfStep,
} from '../domain/cash';
import { datedBeforeRefusal } from '../domain/dating';
import { DEFAULT_PAYMENT_JOURNAL, tradeMove, type JournalLine } from '../domain/journal';
import { lockDateRefusal } from '../domain/lock-date';
import type { InvoiceRow } from '../invoice/invoice.record';
import { invoiceRefusals } from '../invoice/invoice-refusals';
import { journalAmount, type EntryHeader } from '../invoice/journal.repository';
import { creditNoteSource } from './customer-credit-source';
import { documentDated, paymentDated } from './dated';
import { atRate, cashRateOf, needsTableRate, rateOn } from './payment-rate';
import { paymentRefusals } from './payment-refusals';
import { creditNoteUnallocated, paymentValue, settledShare, sourceAccount } from './payment-values';
import { refundRecord, settledView, toPaymentRecord, type AllocationRow, type PaymentRow, type RefundRow } from './payment.record';
import { bookedValue } from './payment.repository';

/**
 * What refunding a partner's credit decides on (refund.repository.ts), in one statement: the
 * organization's settings, the credit's source (the payment with its allocations and refunds, or the
 * credit note with what its entry booked and the version a change of it now gives it), the rate
 * table's rates of its currency over the days the refund may fall on, the ids of the refund and its
 * entry drawn, and the transaction's timestamp.
 */
export interface RefundState {
  settings: Pick<OrganizationSettings, 'lock_date' | 'time_zone' | 'default_currency'> | null | undefined;
  /** The payment named, with its allocations (each with its document's number) and refunds; null: none of the organization's. */
  payment: { row: PaymentRow; allocations: ReadonlyArray<AllocationRow & { invoicenumber: string }>; refunds: readonly RefundRow[] } | null;
  /** The credit note named; null: none of the organization's. */
  note: (InvoiceRow & { next_version: number }) | null;
  /** What the credit note's entry booked in the accounting currency (bookedQuery); null: no entry, or posted as it is. */
  booked: string | null;
  rates: ReadonlyArray<{ date: string; rate: string }>;
  ids: { refundId: number; entryId: number };
  now: Date;
}

type Refund = RequestOf<typeof invoicing.refundPayment>;
export type RefundRequest = Pick<Refund, 'payment_id' | 'credit_note_id' | 'amount'> &
  Partial<Pick<Refund, 'refund_date' | 'method' | 'reference' | 'journal' | 'exchange_rate' | 'userid'>>;

/** Everything a refund writes and answers. */
export interface RefundPlan {
  entryId: number;
  entry: EntryHeader;
  lines: JournalLine[];
  refund: RefundRow & { operation_key: string | null; created_by: string | null };
  /** The payment with its refunded total moved, when the credit is a payment's. */
  payment: PaymentRow | null;
  /** The credit note settled by the refund (its version one more), when the credit is a note's. */
  note: InvoiceRow | null;
  event: EventDataOf<typeof invoicing.paymentRefunded>;
  reply: ReplyOf<typeof invoicing.refundPayment>;
}

/**
 * (Part of) a partner's unallocated credit paid out: a posted payment's rest or a validated credit
 * note's. A customer's credit goes back out of the bank, a vendor's comes back in; the credit leaves
 * its trade account at what it is worth on the books, the money at the refund day's rate, and the
 * difference is realized. Refused, in order: not exactly one source; a date on or before the lock
 * date; the source not found, voided or not a validated credit note; an amount finer than its
 * currency; a date before the source; more than its unallocated credit; a rate the books refuse.
 */
export function decideRefund(
  state: RefundState,
  req: RefundRequest,
  ctx: { orgId: number; instant: Date; operationKey: string | null; userId: string | null },
): RefundPlan {
  if ((req.payment_id === undefined) === (req.credit_note_id === undefined)) throw paymentRefusals.oneCustomerCreditSourceRequired();
  const today = nowIn(state.settings?.time_zone ?? null, ctx.instant).date;
  const date = req.refund_date ?? today;
  const locked = lockDateRefusal(formatDate(state.settings?.lock_date ?? null), date, 'refund_date', 'a refund');
  if (locked) throw invoiceRefusals.lockDatePassed(locked);
  const journal = req.journal?.trim() || DEFAULT_PAYMENT_JOURNAL;
  let payment: PaymentRow | undefined;
  let note: (InvoiceRow & { next_version: number }) | undefined;
  if (req.payment_id !== undefined) {
    payment = state.payment?.row;
    if (!payment) throw paymentRefusals.paymentNotFound(req.payment_id);
    if (payment.status !== 'posted')
      throw paymentRefusals.customerCreditPaymentVoided(payment.id, payment.status, 'it has no credit to refund');
  } else {
    const id = req.credit_note_id as number;
    note = { ...creditNoteSource(state.note ?? undefined, id, today), next_version: state.note?.next_version ?? 0 };
  }
  const source = (payment ?? note)!;
  const currency = source.currency;
  const unit = minorUnitRefusal('amount', req.amount, currency);
  if (unit) throw paymentRefusals.amountFinerThanCurrency(unit);
  const early = datedBeforeRefusal('refund_date', date, 'a refund', [payment ? paymentDated(payment) : documentDated(note!)]);
  if (early) throw paymentRefusals.datedBeforeEarlier(early);
  const available = payment ? unallocatedOf(payment) : creditNoteUnallocated(note!);
  if (dec(req.amount).greaterThan(available))
    throw paymentRefusals.refundExceedsCustomerCredit(
      amountText(req.amount),
      amountText(available),
      payment ? `payment ${payment.id}` : note?.invoicenumber,
    );
  // A payment received is refunded out; a credit note refunds the way its document type settles (register_payment's rule).
  const direction = payment ? (payment.direction === 'in' ? 'out' : 'in') : settlementDirection(note!.invoicetype);
  const account = payment
    ? sourceAccount({ kind: 'payment', direction: payment.direction })
    : sourceAccount({ kind: 'credit_note', note: note! });
  const partnerId = source.partner_id;
  // The credit leaves its trade account at what it is worth on the books (its share of what its
  // source booked, valued as allocation values it); the money paid out is worth the refund day's rate.
  const accounting = state.settings?.default_currency ?? null;
  const cash = { currency, date, given: req.exchange_rate, what: 'the refund' };
  const { places, rate } = cashRateOf(accounting, cash, needsTableRate(accounting, cash) ? rateOn(state.rates, date) : undefined);
  const [item, used] = payment
    ? [paymentValue(payment, places), dec(payment.allocated).plus(dec(payment.refunded))]
    : [bookedValue(note!, state.booked, places), settledShare(note!)];
  const worth = valueOfStep(item, used, used.plus(dec(req.amount)));
  // With no rate given nor in the table, the credit's own: paid out at its worth, realizing nothing.
  const paid = rate === null ? dec(req.amount).toFixed() : rate === undefined ? worth.toFixed() : atRate(req.amount, rate, places);
  const lines = refundLines(direction, { credit: worth, paid }, account, journal);
  const { refundId, entryId } = state.ids;
  const refund = {
    id: refundId,
    org_id: ctx.orgId,
    partner_id: partnerId,
    payment_id: payment?.id ?? null,
    credit_note_id: note?.id ?? null,
    direction,
    amount: String(req.amount),
    currency,
    exchange_rate: rate ?? source.exchange_rate,
    accounting_amount: paid,
    refund_date: date,
    method: req.method ?? null,
    reference: req.reference ?? null,
    journal,
    journal_entry_id: entryId,
    operation_key: ctx.operationKey,
    created_by: req.userid ?? ctx.userId,
  };
  const paymentAfter = payment ? { ...payment, refunded: journalAmount(dec(payment.refunded).plus(dec(req.amount))) } : null;
  const noteAfter = note ? settledNote(note, req.amount, state.now) : null;
  return {
    entryId,
    entry: {
      org_id: ctx.orgId,
      invoice_id: note?.id ?? null,
      payment_id: payment?.id ?? null,
      kind: 'refund',
      journalname: journal,
      journaldate: date,
      reference: (req.reference || (payment ? `Refund PAY-${payment.id}` : `Refund ${note?.invoicenumber}`)).slice(0, 64),
    },
    lines,
    refund,
    payment: paymentAfter,
    note: noteAfter,
    event: {
      refund_id: refundId,
      partner_id: partnerId,
      payment_id: payment?.id ?? null,
      credit_note_id: note?.id ?? null,
      direction,
      side: payment ? ledgerSide(payment.direction) : ledgerSide(direction, note!.invoicetype),
      amount: toNumber(req.amount),
      currency,
      refund_date: date,
      journal_entry_id: entryId,
      trade_delta: toNumber(tradeMove(lines)),
    },
    reply: {
      message: `Refunded ${amountText(req.amount)}`,
      refund: refundRecord(refund),
      ...(paymentAfter ? { payment: toPaymentRecord(paymentAfter, state.payment!.allocations, [...state.payment!.refunds, refund]) } : {}),
      ...(noteAfter ? { credit_note: settledView(noteAfter, today) } : {}),
    },
  };
}

/** A credit note as a refund of `amount` leaves it: paid by it (paid when nothing is left due), its version one more. */
function settledNote(note: InvoiceRow & { next_version: number }, amount: string | number, now: Date): InvoiceRow {
  const { next_version: version, ...row } = note;
  const paid = dec(row.amount_paid).plus(dec(amount));
  const status = statusAfterSettlement(row, paid);
  return {
    ...row,
    amount_paid: journalAmount(paid),
    invoicestatus: status,
    paid_at: status === 'paid' ? (row.paid_at ?? now) : null,
    updated_at: now,
    version,
  };
}
