import { invoicing } from '@bo/contracts';
import { formatDate, formatDateTime, toNumber } from '@bo/kernel';
import { handler, recordEvent } from '@bo/runtime';
import { tradeMove } from '../domain/journal';
import { paymentConversion } from '../payment/payment-rate';
import { bookedDocuments, postPayment } from '../payment/payment.repository';
import { decideRegistration, registrationLines } from './decide-registration';
import { dueOf, eventRef, statusOf } from './invoice.record';
import { addPaid, findInvoice } from './invoice.repository';
import { assertAfterLockDate, postingToday } from './lock-date';

/**
 * Load (the invoice under its lock) → decide (decide-registration.ts) → load the rate and what the
 * invoice booked → the entry's lines → store.
 */
export const registerPaymentHandler = handler(invoicing.registerPayment, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const now = await postingToday(trx, ctx.orgId);
    const paymentDate = req.payment_date ?? now;
    await assertAfterLockDate(trx, ctx.orgId, paymentDate, 'payment_date', 'a payment');
    // Locked so two payments racing cannot together pay more than is due.
    const invoice = await findInvoice(trx, ctx.orgId, req.id, { lock: true });
    const state = { invoice, today: now };
    const registration = decideRegistration(state, {
      amount: req.amount,
      date: formatDate(paymentDate) as string,
      journal: req.journal,
    });
    const { journal, paidInFull } = registration;
    const conversion = await paymentConversion(trx, ctx.orgId, {
      currency: invoice.currency,
      amount: req.amount,
      date: paymentDate,
      given: req.exchange_rate,
      documents: [invoice],
    });
    const booked = await bookedDocuments(trx, [invoice], conversion.places);
    const lines = registrationLines(state, registration, req.amount, conversion, booked);
    // A payment with one allocation (docs/invoicing.md, "Cash application"): listed, voided and
    // reported like any other, its events those register_payment always published.
    const payment = await postPayment(
      trx,
      {
        org_id: ctx.orgId,
        invoice_id: invoice.id,
        kind: 'payment',
        journalname: journal,
        journaldate: paymentDate,
        reference: invoice.invoicenumber,
      },
      lines,
      {
        org_id: ctx.orgId,
        invoice_id: invoice.id,
        partner_id: invoice.partner_id,
        direction: registration.direction,
        currency: invoice.currency,
        exchange_rate: conversion.exchange_rate,
        accounting_amount: conversion.accounting_amount,
        amount: req.amount,
        allocated: req.amount,
        payment_date: paymentDate,
        journal,
        operation_key: ctx.operationKey ?? null,
        created_by: req.userid ?? ctx.userId ?? null,
      },
      {
        org_id: ctx.orgId,
        invoice_id: invoice.id,
        amount: req.amount,
        allocation_date: paymentDate,
        operation_key: ctx.operationKey ?? null,
      },
    );
    const { id: paymentId, journal_entry_id: journalEntryId } = payment;
    const updated = await addPaid(trx, invoice.id, req.amount, { paidInFull });
    await recordEvent(trx, invoicing.invoicePaymentRegistered, ctx.orgId, {
      ...eventRef(updated),
      payment_id: paymentId,
      amount: toNumber(req.amount),
      currency: updated.currency,
      payment_date: paymentDate,
      journal,
      amount_paid: toNumber(updated.amount_paid),
      due_amount: dueOf(updated),
      journal_entry_id: journalEntryId,
      trade_delta: toNumber(tradeMove(lines)),
    });
    if (paidInFull)
      await recordEvent(trx, invoicing.invoicePaid, ctx.orgId, {
        ...eventRef(updated),
        paid_at: formatDateTime(updated.paid_at) as string,
      });
    return {
      message: paidInFull ? `Payment registered; invoice ${updated.invoicenumber} is paid` : 'Payment registered successfully',
      invoice: {
        id: updated.id,
        invoicenumber: updated.invoicenumber,
        invoicestatus: statusOf(updated, now),
        invoicetotal: toNumber(updated.invoicetotal),
        amount_paid: toNumber(updated.amount_paid),
        due_amount: dueOf(updated),
      },
      payment: {
        id: paymentId,
        amount: toNumber(req.amount),
        payment_date: formatDate(paymentDate) as string,
        journal,
        journal_entry_id: journalEntryId,
      },
    };
  });
});
