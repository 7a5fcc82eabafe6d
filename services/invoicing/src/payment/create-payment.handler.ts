import { invoicing } from '@bo/contracts';
import { dec, toNumber } from '@bo/kernel';
import { handler, recordEvent, type ApplyContext } from '@bo/runtime';
import { requireLivePartner, requirePartnerRole } from '@bo/billing';
import type { ReplyOf, RequestOf } from '@bo/contracts';
import { datedBeforeRefusal } from '../domain/dating';
import { documentDated } from './dated';
import { allocationRefusals, INVOICE_OF_DIRECTION, ledgerSide, minorUnitRefusal, paymentLines, valueOfShare } from '../domain/cash';
import { accountsFor, DEFAULT_PAYMENT_JOURNAL, tradeMove } from '../domain/journal';
import type { InvoiceRow } from '../invoice/invoice.record';
import { assertAfterLockDate, postingToday } from '../invoice/lock-date';
import { paymentConversion } from './payment-rate';
import { bookAllocations, bookedDocuments, lockDocuments, postPayment } from './payment.repository';
import { settledView, toPaymentRecord } from './payment.record';
import { allocationEvents } from './payment.events';
import { refuse } from './payment-refusals';
import { documentStep, paymentValue } from './payment-values';
import { journalAmount } from '../invoice/journal.repository';

/**
 * A payment received (`in`) or sent (`out`), allocated at once to the documents named; what is left
 * is the partner's credit. The partner is checked first, with no transaction open; then the documents
 * are locked in id order, judged (domain/cash.ts) and settled, the payment's entry posted, and one
 * `invoicing.payment.created` event carries it all to the partner ledger.
 */
export const createPaymentHandler = handler(invoicing.createPayment, {
  gather: async (req, ctx) => {
    const partner = await requireLivePartner(ctx, req.partner);
    requirePartnerRole(partner, INVOICE_OF_DIRECTION[req.direction]);
    return {};
  },
  apply: async (req, ctx) => recordPayment(ctx, req),
});

/**
 * The payment's write, after the partner was checked: shared with bank reconciliation
 * (bank/reconcile.ts), which records the payments of statement lines through it.
 */
export async function recordPayment(
  ctx: Pick<ApplyContext, 'db' | 'orgId' | 'operationKey' | 'userId'>,
  req: Omit<RequestOf<typeof invoicing.createPayment>, 'org_id' | 'action'>,
): Promise<ReplyOf<typeof invoicing.createPayment>> {
  const db = ctx.db;
  const today = await postingToday(db, ctx.orgId);
  const paymentDate = req.payment_date ?? today;
  await assertAfterLockDate(db, ctx.orgId, paymentDate, 'payment_date', 'a payment');
  const requested = req.allocations ?? [];
  const documents = await lockDocuments(
    db,
    ctx.orgId,
    requested.map((a) => a.invoice_id),
  );
  const unit = minorUnitRefusal('amount', req.amount, req.currency);
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
  if (unit) refusals.unshift(unit);
  const early = datedBeforeRefusal('payment_date', paymentDate, 'a payment settling them', [...documents.values()].map(documentDated));
  if (early) refusals.push(early);
  if (refusals.length) refuse(refusals);

  const journal = req.journal?.trim() || DEFAULT_PAYMENT_JOURNAL;
  const allocated = requested.reduce((s, a) => s.plus(dec(a.amount)), dec(0));
  const conversion = await paymentConversion(db, ctx.orgId, {
    currency: req.currency,
    amount: req.amount,
    date: paymentDate,
    given: req.exchange_rate,
    documents: [...documents.values()],
  });
  // The bank at the payment's worth, each document cleared at its own, the rest (credit) at the payment's.
  const worths = await bookedDocuments(db, documents.values(), conversion.places);
  const parts = requested.map((a) => {
    const doc = documents.get(a.invoice_id) as InvoiceRow;
    return { account: accountsFor(doc.invoicetype, doc).trade, amount: documentStep(doc, worths, a.amount) };
  });
  const worth = paymentValue({ amount: req.amount, accounting_amount: conversion.accounting_amount }, conversion.places);
  const rest = dec(conversion.accounting_amount).minus(valueOfShare(worth, allocated));
  const lines = paymentLines(req.direction, conversion.accounting_amount, journal, parts, rest);
  const payment = await postPayment(
    db,
    {
      org_id: ctx.orgId,
      invoice_id: requested.length === 1 ? (requested[0]?.invoice_id ?? null) : null,
      kind: 'payment',
      journalname: journal,
      journaldate: paymentDate,
      reference: req.reference?.slice(0, 64) || 'Payment',
    },
    lines,
    {
      org_id: ctx.orgId,
      partner_id: req.partner,
      direction: req.direction,
      amount: req.amount,
      currency: req.currency,
      exchange_rate: conversion.exchange_rate,
      accounting_amount: conversion.accounting_amount,
      payment_date: paymentDate,
      method: req.method ?? null,
      reference: req.reference ?? null,
      journal,
      allocated: journalAmount(allocated),
      operation_key: ctx.operationKey ?? null,
      created_by: req.userid ?? ctx.userId ?? null,
    },
  );
  const journalEntryId = payment.journal_entry_id;
  // The payment's own entry credits each document's trade account by its part: its allocations are posted by it.
  const booked = await bookAllocations(db, {
    orgId: ctx.orgId,
    source: { payment_id: payment.id, credit_note_id: null, account: null, postedBy: journalEntryId, reference: `PAY-${payment.id}` },
    documents,
    booked: worths,
    requested,
    date: paymentDate,
    journal,
    operationKey: ctx.operationKey,
  });
  await recordEvent(db, invoicing.paymentCreated, ctx.orgId, {
    payment_id: payment.id,
    partner_id: req.partner,
    direction: req.direction,
    side: ledgerSide(req.direction),
    amount: toNumber(req.amount),
    currency: req.currency,
    payment_date: paymentDate,
    journal_entry_id: journalEntryId,
    // Its entry posted its allocations too: this is all of its trade move.
    trade_delta: toNumber(tradeMove(lines)),
    allocations: allocationEvents(booked, documents),
  });
  // A new payment's record is what was just written: its allocations, no refunds.
  const allocationsWritten = [...booked]
    .sort((a, b) => a.id - b.id)
    .map((a) => ({ ...a, invoicenumber: (documents.get(a.invoice_id) as InvoiceRow).invoicenumber }));
  const record = toPaymentRecord(payment, allocationsWritten, []);
  return {
    message: booked.length
      ? `Payment recorded and allocated to ${booked.length} document(s)`
      : 'Payment recorded; unallocated, it is the partner’s credit',
    payment: record,
    invoices: [...new Set(requested.map((a) => a.invoice_id))].map((id) => settledView(documents.get(id) as InvoiceRow, today)),
  };
}
