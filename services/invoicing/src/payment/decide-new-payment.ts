import type { EventDataOf, invoicing, ReplyOf, RequestOf } from '@bo/contracts';
import { dec, toNumber } from '@bo/kernel';
import type { OrganizationSettings } from '@bo/billing';
import {
  allocationRefusals,
  INVOICE_OF_DIRECTION,
  ledgerSide,
  minorUnitRefusal,
  paymentLines,
  statusAfterSettlement,
  valueOfShare,
} from '../domain/cash';
import { datedBeforeRefusal } from '../domain/dating';
import { accountsFor, DEFAULT_PAYMENT_JOURNAL, tradeMove, type JournalLine } from '../domain/journal';
import type { InvoiceRow } from '../invoice/invoice.record';
import { journalAmount, type EntryHeader } from '../invoice/journal.repository';
import { documentDated, paymentDay } from './dated';
import { conversionOf, needsTableRate, rateOn } from './payment-rate';
import { documentStep, paymentValue } from './payment-values';
import { bookedValue } from './payment.repository';
import { refuse } from './payment-refusals';
import { allocationEvents } from './payment.events';
import { settledView, toPaymentRecord, type AllocationRow, type PaymentRow } from './payment.record';

/**
 * A new payment, load → decide → store (create-payment.handler.ts): what the load read
 * (new-payment.repository.ts) in; the payment, its entry, its allocations, the documents it settles,
 * its event and the reply out.
 */

/** What the load read: the settings held, the documents named locked, what each booked, the rates the payment may take, the ids drawn. */
export interface NewPaymentState {
  /** The organization's settings (lock date, time zone, accounting currency); null or undefined when unseen. */
  settings: Pick<OrganizationSettings, 'lock_date' | 'time_zone' | 'default_currency'> | null | undefined;
  /** The organization's documents among those named, by id, with the version a change by this transaction gives them (`next_version`). */
  documents: ReadonlyMap<number, InvoiceRow & { next_version: number }>;
  /** What each converted document's entry booked in the accounting currency (bookedQuery); absent or null: no entry, or posted as it is. */
  booked: ReadonlyMap<number, string | null>;
  /** The rate table's rates of the payment's currency against the accounting currency, over the dates the payment may fall on (rateWindow). */
  rates: ReadonlyArray<{ date: string; rate: string }>;
  /** Drawn from their sequences: the entry's and the payment's ids, and one id per allocation asked for, in request order. */
  ids: { entryId: number; paymentId: number; allocationIds: readonly number[] };
  /** The transaction's timestamp: what the store's `now()` writes. */
  now: Date;
}

export type NewPaymentRequest = Omit<RequestOf<typeof invoicing.createPayment>, 'org_id' | 'action'>;

/** Everything a new payment writes and answers. */
export interface NewPaymentPlan {
  ids: { entryId: number; paymentId: number };
  entry: Omit<EntryHeader, 'payment_id'>;
  lines: JournalLine[];
  payment: Record<string, string | number | null>;
  allocations: Array<{
    id: number;
    org_id: number;
    invoice_id: number;
    amount: string;
    allocation_date: string;
    operation_key: string | null;
  }>;
  /** The documents settled, as the payment leaves them. */
  documents: InvoiceRow[];
  event: EventDataOf<typeof invoicing.paymentCreated>;
  reply: ReplyOf<typeof invoicing.createPayment>;
}

/**
 * A payment received (`in`) or sent (`out`), allocated at once to the documents named; what is left
 * is the partner's credit. Dated on or after the lock date (asked first), then every refusal of the
 * amount, the allocations (domain/cash.ts allocationRefusals) and the date together, then the rate
 * (paymentConversion's rules, conversionOf). The payment's one entry posts the bank at the payment's
 * worth, each document cleared at its own, the rest (credit) at the payment's; each allocation is
 * posted by that entry.
 */
export function decideNewPayment(
  state: NewPaymentState,
  req: NewPaymentRequest,
  ctx: { orgId: number; operationKey: string | null; userId: string | null; instant: Date },
): NewPaymentPlan {
  const { today, paymentDate } = paymentDay(state.settings, req.payment_date, ctx.instant);
  const requested = req.allocations ?? [];
  const { documents } = state;
  const refusals = allocationRefusals(
    {
      partner_id: req.partner,
      settles: INVOICE_OF_DIRECTION[req.direction],
      currency: req.currency,
      unallocated: req.amount,
      amountField: 'amount',
      label: 'the payment',
    },
    requested,
    documents,
    today,
  );
  const unit = minorUnitRefusal('amount', req.amount, req.currency);
  if (unit) refusals.unshift(unit);
  const early = datedBeforeRefusal('payment_date', paymentDate, 'a payment settling them', [...documents.values()].map(documentDated));
  if (early) refusals.push(early);
  if (refusals.length) refuse(refusals);

  // Every document named is the organization's and named once (allocationRefusals): each is in the map.
  const settled = requested.map((a) => ({ ...a, doc: documents.get(a.invoice_id) as InvoiceRow & { next_version: number } }));
  const accounting = state.settings?.default_currency ?? null;
  const cash = {
    currency: req.currency,
    amount: req.amount,
    date: paymentDate,
    given: req.exchange_rate,
    documents: settled.map((s) => s.doc),
  };
  const conversion = conversionOf(accounting, cash, needsTableRate(accounting, cash) ? rateOn(state.rates, paymentDate) : undefined);
  const booked = new Map(settled.map(({ doc }) => [doc.id, bookedValue(doc, state.booked.get(doc.id), conversion.places)]));
  const journal = req.journal?.trim() || DEFAULT_PAYMENT_JOURNAL;
  const allocated = requested.reduce((sum, a) => sum.plus(dec(a.amount)), dec(0));
  const parts = settled.map(({ doc, amount }) => ({
    account: accountsFor(doc.invoicetype, doc).trade,
    amount: documentStep(doc, booked, amount),
  }));
  const worth = paymentValue({ amount: String(req.amount), accounting_amount: conversion.accounting_amount }, conversion.places);
  const rest = dec(conversion.accounting_amount).minus(valueOfShare(worth, allocated));
  const lines = paymentLines(req.direction, conversion.accounting_amount, journal, parts, rest);

  const { entryId, paymentId, allocationIds } = state.ids;
  const allocations = settled.map(({ doc, amount }, n) => ({
    id: allocationIds[n] as number,
    org_id: ctx.orgId,
    invoice_id: doc.id,
    amount: journalAmount(dec(amount)),
    allocation_date: paymentDate,
    operation_key: ctx.operationKey,
  }));
  // Each document is paid by its allocation, and paid in full when nothing is left due; the first time it was paid stays.
  const after = new Map<number, InvoiceRow>(
    settled.map(({ doc, amount }) => {
      const paid = dec(doc.amount_paid).plus(dec(amount));
      const status = statusAfterSettlement(doc, paid);
      const { next_version, ...row } = doc;
      return [
        doc.id,
        {
          ...row,
          amount_paid: journalAmount(paid),
          invoicestatus: status,
          paid_at: status === 'paid' ? (doc.paid_at ?? state.now) : null,
          updated_at: state.now,
          version: next_version,
        },
      ];
    }),
  );
  const payment = {
    org_id: ctx.orgId,
    partner_id: req.partner,
    direction: req.direction,
    amount: String(req.amount),
    currency: req.currency,
    exchange_rate: conversion.exchange_rate,
    accounting_amount: conversion.accounting_amount,
    payment_date: paymentDate,
    method: req.method ?? null,
    reference: req.reference ?? null,
    journal,
    allocated: journalAmount(allocated),
    operation_key: ctx.operationKey,
    created_by: req.userid ?? ctx.userId,
  };
  // An allocation made by its payment's own entry moves no trade account of its own.
  const rows: Array<AllocationRow & { invoicenumber: string }> = allocations.map((a) => ({
    ...a,
    payment_id: paymentId,
    credit_note_id: null,
    status: 'active',
    journal_entry_id: entryId,
    invoicenumber: (after.get(a.invoice_id) as InvoiceRow).invoicenumber,
  }));
  const stored: PaymentRow = {
    ...payment,
    id: paymentId,
    invoice_id: null,
    status: 'posted',
    refunded: '0',
    journal_entry_id: entryId,
    void_journal_entry_id: null,
    void_reason: null,
    voided_at: null,
    created_at: state.now,
  };
  return {
    ids: { entryId, paymentId },
    entry: {
      org_id: ctx.orgId,
      // An entry paying one document names it, so the document's balances show it among its pay journals.
      invoice_id: requested.length === 1 ? (requested[0] as { invoice_id: number }).invoice_id : null,
      kind: 'payment',
      journalname: journal,
      journaldate: paymentDate,
      reference: req.reference?.slice(0, 64) || 'Payment',
    },
    lines,
    payment,
    allocations,
    documents: [...after.values()],
    event: {
      payment_id: paymentId,
      partner_id: req.partner,
      direction: req.direction,
      side: ledgerSide(req.direction),
      amount: toNumber(req.amount),
      currency: req.currency,
      payment_date: paymentDate,
      journal_entry_id: entryId,
      // Its entry posted its allocations too: this is all of its trade move.
      trade_delta: toNumber(tradeMove(lines)),
      allocations: allocationEvents(rows, after),
    },
    reply: {
      message: rows.length
        ? `Payment recorded and allocated to ${rows.length} document(s)`
        : 'Payment recorded; unallocated, it is the partner’s credit',
      payment: toPaymentRecord(stored, rows, []),
      invoices: settled.map(({ doc }) => settledView(after.get(doc.id) as InvoiceRow, today)),
    },
  };
}
