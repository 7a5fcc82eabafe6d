import type { EventDataOf, invoicing, ReplyOf } from '@bo/contracts';
import { dec, formatDate, toNumber } from '@bo/kernel';
import { nowIn, type OrganizationSettings } from '@bo/billing';
import { ledgerSide, statusAfterSettlement, valueOfShare, valueOfStep, voidLines } from '../domain/cash';
import { datedBeforeRefusal } from '../domain/dating';
import { accountsFor, tradeMove, type JournalLine } from '../domain/journal';
import { lockDateRefusal } from '../domain/lock-date';
import type { InvoiceRow } from '../invoice/invoice.record';
import { invoiceRefusals } from '../invoice/invoice-refusals';
import { journalAmount, type EntryHeader } from '../invoice/journal.repository';
import { allocationDated, paymentDated } from './dated';
import { accountingPlaces } from './payment-rate';
import { paymentRefusals } from './payment-refusals';
import { paymentValue, settledShare } from './payment-values';
import { settledView, toPaymentRecord, type AllocationRow, type PaymentRow, type RefundRow } from './payment.record';
import { allocationEvents } from './payment.events';
import { bookedValue } from './payment.repository';

/**
 * What voiding a payment decides on (void.repository.ts), in one statement: the organization's
 * settings, the payment, all its allocations (each with its document's number) and refunds, the
 * documents its active allocations settle (each with the version a change of it now gives it, and
 * what its entry booked), the id of the reversal entry drawn, and the transaction's timestamp, which
 * the store writes as the time of the void.
 */
export interface VoidState {
  /** The organization's settings (lock date, time zone, accounting currency); undefined or null when unseen. */
  settings: Pick<OrganizationSettings, 'lock_date' | 'time_zone' | 'default_currency'> | null | undefined;
  /** Null when the organization has no payment of that id. */
  payment: PaymentRow | null;
  allocations: ReadonlyArray<AllocationRow & { invoicenumber: string }>;
  refunds: readonly RefundRow[];
  documents: ReadonlyMap<number, InvoiceRow & { next_version: number }>;
  /** What each document's entry booked in the accounting currency (bookedQuery); null: no entry, or posted as it is. */
  booked: ReadonlyMap<number, string | null>;
  entryId: number;
  now: Date;
}

/** Everything a void writes and answers. */
export interface VoidPlan {
  entryId: number;
  entry: EntryHeader;
  lines: JournalLine[];
  /** The payment as the void leaves it (the store also writes `void_date`). */
  payment: PaymentRow;
  voidDate: string;
  /** The ids of the allocations it voids. */
  voided: number[];
  /** Its documents as the void leaves them, in id order: owing again what the payment had settled. */
  documents: InvoiceRow[];
  event: EventDataOf<typeof invoicing.paymentVoided>;
  reply: ReplyOf<typeof invoicing.voidPayment>;
}

/**
 * A payment voided: its active allocations are voided (their documents owe again) and a reversal
 * entry mirrors what the payment's entries still stand for; nothing is deleted. Refused, in order: a
 * void dated on or before the lock date (on `void_date`), a payment the organization does not have,
 * one already voided, one whose credit was partly refunded, a void dated before the payment or one of
 * its allocations, and a payment one of whose documents was written off since: the money or the loss
 * those booked would be left without a cause.
 */
export function decideVoid(
  state: VoidState,
  req: { payment_id: number; void_date?: string; reason?: string | null },
  ctx: { orgId: number; instant: Date },
): VoidPlan {
  const today = nowIn(state.settings?.time_zone ?? null, ctx.instant).date;
  const date = req.void_date ?? today;
  const locked = lockDateRefusal(formatDate(state.settings?.lock_date ?? null), date, 'void_date', 'a void');
  if (locked) throw invoiceRefusals.lockDatePassed(locked);
  const payment = state.payment;
  if (!payment) throw paymentRefusals.paymentNotFound(req.payment_id);
  if (payment.status === 'voided') throw paymentRefusals.paymentAlreadyVoided(payment.id);
  if (Number(payment.refunded) > 0) throw paymentRefusals.refundedPaymentVoided(payment.id, payment.refunded);
  const active = state.allocations.filter((a) => a.status === 'active');
  const early = datedBeforeRefusal('void_date', date, 'a void', [paymentDated(payment), ...active.map(allocationDated)]);
  if (early) throw paymentRefusals.datedBeforeEarlier(early);
  const documents = [...state.documents.values()].sort((a, b) => a.id - b.id);
  const writtenOff = documents.filter((d) => d.invoicestatus === 'written_off');
  if (writtenOff.length)
    throw paymentRefusals.paymentSettlesWrittenOff(
      payment.id,
      writtenOff.map((d) => d.invoicenumber),
    );

  // What the payment still stands for, valued as it was booked: each document's clearing undone at the
  // document's worth (from what is settled now, back), the credit left at the payment's.
  const places = accountingPlaces(state.settings?.default_currency ?? null);
  const current = new Map<number, InvoiceRow>(documents.map((d) => [d.id, d]));
  const parts = active.map((a) => {
    const doc = current.get(a.invoice_id)!;
    const to = settledShare(doc);
    const paid = dec(doc.amount_paid).minus(dec(a.amount));
    const status = statusAfterSettlement(doc, paid);
    current.set(doc.id, {
      ...doc,
      amount_paid: journalAmount(paid),
      invoicestatus: status,
      paid_at: status === 'paid' ? (doc.paid_at ?? state.now) : null,
    });
    const booked = bookedValue(doc, state.booked.get(doc.id), places);
    return { account: accountsFor(doc.invoicetype, doc).trade, amount: valueOfStep(booked, to.minus(dec(a.amount)), to) };
  });
  const worth = paymentValue(payment, places);
  const rest = dec(payment.accounting_amount).minus(valueOfShare(worth, payment.allocated));
  const lines = voidLines(payment.direction, payment.accounting_amount, payment.journal, parts, rest);
  const settled = documents.map((d) => ({ ...current.get(d.id)!, updated_at: state.now, version: d.next_version }));
  const byId = new Map(settled.map((d) => [d.id, d]));

  const voidedPayment: PaymentRow = {
    ...payment,
    status: 'voided',
    allocated: '0',
    void_journal_entry_id: state.entryId,
    void_reason: req.reason ?? null,
    voided_at: state.now,
  };
  const allocations = state.allocations.map((a) => (a.status === 'active' ? { ...a, status: 'voided' as const } : a));
  return {
    entryId: state.entryId,
    entry: {
      org_id: ctx.orgId,
      invoice_id: active.length === 1 ? active[0]!.invoice_id : null,
      payment_id: payment.id,
      kind: 'void',
      journalname: payment.journal,
      journaldate: date,
      reference: `Void PAY-${payment.id}`,
    },
    lines,
    payment: voidedPayment,
    voidDate: date,
    voided: active.map((a) => a.id),
    documents: settled,
    event: {
      payment_id: payment.id,
      partner_id: payment.partner_id,
      direction: payment.direction,
      side: ledgerSide(payment.direction, active[0] ? byId.get(active[0].invoice_id)?.invoicetype : undefined),
      amount: toNumber(payment.amount),
      currency: payment.currency,
      void_date: date,
      journal_entry_id: state.entryId,
      trade_delta: toNumber(tradeMove(lines)),
      allocations: allocationEvents(active, byId),
    },
    reply: {
      message: `Payment ${payment.id} voided`,
      payment: toPaymentRecord(voidedPayment, allocations, state.refunds),
      invoices: settled.map((d) => settledView(d, today)),
    },
  };
}
