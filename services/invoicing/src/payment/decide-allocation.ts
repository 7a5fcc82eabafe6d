import type { EventDataOf, invoicing, ReplyOf, RequestOf } from '@bo/contracts';
import { dec, formatDate, sum } from '@bo/kernel';
import { nowIn, type OrganizationSettings } from '@bo/billing';
import {
  allocationRefusals,
  creditNoteSettles,
  INVOICE_OF_DIRECTION,
  statusAfterSettlement,
  unallocatedOf,
  type BookedValue,
  type CreditSource,
} from '../domain/cash';
import { datedBeforeRefusal } from '../domain/dating';
import { DEFAULT_PAYMENT_JOURNAL, tradeMove, type JournalLine } from '../domain/journal';
import { lockDateRefusal } from '../domain/lock-date';
import type { InvoiceRow } from '../invoice/invoice.record';
import { invoiceRefusals } from '../invoice/invoice-refusals';
import { journalAmount, type EntryHeader } from '../invoice/journal.repository';
import { creditNoteSource } from './customer-credit-source';
import { documentDated, paymentDated } from './dated';
import { accountingPlaces } from './payment-rate';
import { paymentRefusals, refuse } from './payment-refusals';
import { creditNoteUnallocated, paymentValue, settledShare, sourceAccount } from './payment-values';
import {
  allocationRecord,
  settledView,
  toPaymentRecord,
  type AllocationRow,
  type BookedAllocation,
  type PaymentRow,
  type RefundRow,
} from './payment.record';
import { allocationEvents } from './payment.events';
import { bookedValue } from './payment.repository';
import { planAllocations, type PlannedAllocation } from './plan-allocations';

/**
 * What allocating a partner's credit decides on (allocation.repository.ts), in one statement: the
 * organization's settings, the payment named with its allocations and refunds, the documents named
 * (the credit note among them) each with what its entry booked and the version a change of it now
 * gives it, the ids of the allocations and their entries drawn, and the transaction's timestamp,
 * which the store writes as the documents' time of payment and update.
 */
export interface AllocationState {
  settings: Pick<OrganizationSettings, 'lock_date' | 'time_zone' | 'default_currency'> | null | undefined;
  /** The payment named, with its allocations (each with its document's number) and refunds; null: none of the organization's, or none named. */
  payment: { row: PaymentRow; allocations: ReadonlyArray<AllocationRow & { invoicenumber: string }>; refunds: readonly RefundRow[] } | null;
  /** The organization's documents among those named (the allocations' and the credit note), by id. */
  documents: ReadonlyMap<number, InvoiceRow & { next_version: number }>;
  /** What each converted document's entry booked in the accounting currency (bookedQuery); absent or null: no entry, or posted as it is. */
  booked: ReadonlyMap<number, string | null>;
  /** Drawn from their sequences, one of each per allocation asked for, in request order. */
  ids: { entryIds: readonly number[]; allocationIds: readonly number[] };
  now: Date;
}

type Allocate = RequestOf<typeof invoicing.allocatePayment>;
export type AllocationRequest = Pick<Allocate, 'allocations'> &
  Partial<Pick<Allocate, 'payment_id' | 'credit_note_id' | 'allocation_date'>>;

/** An allocation as stored under its drawn id, with its own entry (when it posts one) under its drawn id. */
export interface AllocationWrite {
  row: PlannedAllocation & { id: number };
  entry: { id: number; header: EntryHeader; lines: JournalLine[] } | null;
}

/** Everything an allocation writes and answers. */
export interface AllocationPlan {
  orgId: number;
  allocations: AllocationWrite[];
  /** The payment with its allocated total moved, when the credit is a payment's. */
  payment: PaymentRow | null;
  /** The documents settled as the allocations leave them (the credit note among them, when it is the source), in id order, times and versions as stored. */
  documents: InvoiceRow[];
  event: EventDataOf<typeof invoicing.paymentAllocated>;
  reply: ReplyOf<typeof invoicing.allocatePayment>;
}

/**
 * A posted payment's or a validated credit note's unallocated credit allocated to open documents of
 * the same partner and direction, each allocation an entry of its own: the credit used up at its
 * source's worth, each document cleared at its own (docs/invoicing.md "Payments in another
 * currency"). Refused, in order: not exactly one source; a date on or before the lock date; the
 * payment not found or voided; the credit note not found, not a credit note or not validated; then
 * every refusal of the allocations (domain/cash.ts allocationRefusals) and the date before the source
 * or a document, together.
 */
export function decideAllocation(
  state: AllocationState,
  req: AllocationRequest,
  ctx: { orgId: number; instant: Date; operationKey: string | null },
): AllocationPlan {
  if ((req.payment_id === undefined) === (req.credit_note_id === undefined)) throw paymentRefusals.oneCustomerCreditSourceRequired();
  const today = nowIn(state.settings?.time_zone ?? null, ctx.instant).date;
  const date = req.allocation_date ?? today;
  const locked = lockDateRefusal(formatDate(state.settings?.lock_date ?? null), date, 'allocation_date', 'an allocation');
  if (locked) throw invoiceRefusals.lockDatePassed(locked);
  let payment: PaymentRow | undefined;
  if (req.payment_id !== undefined) {
    payment = state.payment?.row;
    if (!payment) throw paymentRefusals.paymentNotFound(req.payment_id);
    if (payment.status !== 'posted')
      throw paymentRefusals.customerCreditPaymentVoided(payment.id, payment.status, 'only a posted payment can be allocated');
  }
  const note =
    req.credit_note_id !== undefined
      ? (creditNoteSource(state.documents.get(req.credit_note_id), req.credit_note_id, today) as InvoiceRow & { next_version: number })
      : undefined;
  // The note itself is never a target.
  const documents = new Map([...state.documents].filter(([id]) => id !== note?.id));
  const source: CreditSource = payment
    ? {
        partner_id: payment.partner_id,
        settles: INVOICE_OF_DIRECTION[payment.direction],
        currency: payment.currency,
        unallocated: unallocatedOf(payment),
        amountField: 'allocations',
        label: `payment ${payment.id}`,
      }
    : {
        partner_id: note!.partner_id,
        settles: creditNoteSettles(note!.invoicetype) as 'invoiceout' | 'invoicein',
        currency: note!.currency,
        unallocated: creditNoteUnallocated(note!),
        amountField: 'allocations',
        label: note!.invoicenumber,
      };
  const refusals = allocationRefusals(source, req.allocations, documents, today);
  const early = datedBeforeRefusal('allocation_date', date, 'an allocation', [
    payment ? paymentDated(payment) : documentDated(note!),
    ...[...documents.values()].map(documentDated),
  ]);
  if (early) refusals.push(early);
  if (refusals.length) refuse(refusals);

  // The credit is used up at its source's worth, each document cleared at its own.
  const places = accountingPlaces(state.settings?.default_currency ?? null);
  const worths = new Map<number, BookedValue>(
    [...state.documents.values()].map((d) => [d.id, bookedValue(d, state.booked.get(d.id), places)]),
  );
  const { steps, settled } = planAllocations({
    orgId: ctx.orgId,
    source: payment
      ? {
          payment_id: payment.id,
          credit_note_id: null,
          account: sourceAccount({ kind: 'payment', direction: payment.direction }),
          value: { item: paymentValue(payment, places), used: dec(payment.allocated).plus(dec(payment.refunded)) },
          reference: `PAY-${payment.id}`,
        }
      : {
          payment_id: null,
          credit_note_id: note!.id,
          account: sourceAccount({ kind: 'credit_note', note: note! }),
          value: { item: worths.get(note!.id)!, used: settledShare(note!) },
          reference: note!.invoicenumber,
        },
    documents,
    booked: worths,
    requested: req.allocations,
    date,
    journal: payment?.journal ?? DEFAULT_PAYMENT_JOURNAL,
    operationKey: ctx.operationKey,
  });

  // Each allocation under its drawn id; the entries under theirs, in the order they post.
  let entries = 0;
  const allocations: AllocationWrite[] = steps.map((step) => {
    const id = state.ids.allocationIds[step.row.seq]!;
    if (!step.entry) return { row: { ...step.row, id }, entry: null };
    const entryId = state.ids.entryIds[entries++]!;
    return { row: { ...step.row, id, journal_entry_id: entryId }, entry: { id: entryId, header: step.entry, lines: step.lines ?? [] } };
  });
  const total = journalAmount(sum(req.allocations.map((a) => dec(a.amount))));
  const after = new Map<number, InvoiceRow>(
    [...settled.values()].map((doc) => [doc.id, asStored(doc, state.documents.get(doc.id)!, state.now)]),
  );
  const noteAfter = note
    ? asStored({ ...note, amount_paid: journalAmount(dec(note.amount_paid).plus(dec(total))) }, note, state.now)
    : undefined;
  const paymentAfter = payment ? { ...payment, allocated: journalAmount(dec(payment.allocated).plus(dec(total))) } : null;
  const booked = allocations.map(({ row }, n): BookedAllocation => {
    const lines = steps[n]!.lines;
    return {
      id: row.id,
      org_id: row.org_id,
      payment_id: row.payment_id,
      credit_note_id: row.credit_note_id,
      invoice_id: row.invoice_id,
      amount: row.amount,
      allocation_date: row.allocation_date,
      status: 'active',
      journal_entry_id: row.journal_entry_id,
      ...(lines !== null ? { trade_delta: tradeMove(lines) } : {}),
    };
  });
  const numbered = booked.map(({ trade_delta: _delta, ...a }) => ({ ...a, invoicenumber: after.get(a.invoice_id)!.invoicenumber }));
  return {
    orgId: ctx.orgId,
    allocations,
    payment: paymentAfter,
    documents: [...after.values(), ...(noteAfter ? [noteAfter] : [])].sort((a, b) => a.id - b.id),
    event: {
      partner_id: source.partner_id,
      payment_id: payment?.id ?? null,
      credit_note_id: note?.id ?? null,
      credit_note_number: note?.invoicenumber ?? null,
      currency: source.currency,
      allocation_date: date,
      allocations: allocationEvents(booked, after),
    },
    reply: {
      message: `Allocated ${total} to ${booked.length} document(s)`,
      allocations: numbered.map(allocationRecord),
      ...(paymentAfter
        ? {
            payment: toPaymentRecord(
              paymentAfter,
              [...state.payment!.allocations, ...numbered].sort((a, b) => a.id - b.id),
              state.payment!.refunds,
            ),
          }
        : {}),
      ...(noteAfter ? { credit_note: settledView(noteAfter, today) } : {}),
      invoices: [...new Set(req.allocations.map((a) => a.invoice_id))].map((id) => settledView(after.get(id)!, today)),
    },
  };
}

/**
 * A document as its settlement stores it (settlementPart): `moved`'s paid amount, its status by it,
 * paid now (the first time it was paid stays) or not, updated now, its version the one a change of
 * it gives it.
 */
function asStored(moved: InvoiceRow, read: InvoiceRow & { next_version: number }, now: Date): InvoiceRow {
  const { next_version: version, ...row } = { ...read, ...moved, next_version: read.next_version };
  const status = statusAfterSettlement(row, row.amount_paid);
  return { ...row, invoicestatus: status, paid_at: status === 'paid' ? (read.paid_at ?? now) : null, updated_at: now, version };
}
