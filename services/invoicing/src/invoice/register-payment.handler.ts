import { invoicing } from '@bo/contracts';
import { amountText, dec, formatDate, formatDateTime, toNumber } from '@bo/kernel';
import { handler, invalidState, recordEvent, validationFailed } from '@bo/runtime';
import { accountsFor, DEFAULT_PAYMENT_JOURNAL, tradeMove } from '../domain/journal';
import { minorUnitRefusal, paymentLines, settlementDirection } from '../domain/cash';
import { paymentConversion } from '../payments/payment-rate';
import { bookedDocuments, documentStep, postPayment } from '../payments/payment.repository';
import { canTakePayment } from '../domain/status';
import { dueOf, eventRef, statusOf, type InvoiceRow } from './invoice.record';
import { findInvoice } from './invoice.repository';
import { assertAfterLockDate, postingToday } from './lock-date';
import { datedBeforeRefusal } from '../domain/dating';
import { documentDated } from '../payments/dated';

export const registerPaymentHandler = handler(invoicing.registerPayment, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const now = await postingToday(trx, ctx.orgId);
    const paymentDate = req.payment_date ?? now;
    await assertAfterLockDate(trx, ctx.orgId, paymentDate, 'payment_date', 'a payment');
    // Locked so two payments racing cannot together pay more than is due.
    const invoice = await findInvoice(trx, ctx.orgId, req.id, { lock: true });
    const status = statusOf(invoice, now);
    if (!canTakePayment(status)) {
      throw invalidState(`A payment can only be registered on an open or overdue invoice; invoice ${invoice.invoicenumber} is ${status}`);
    }
    const unit = minorUnitRefusal('amount', req.amount, invoice.currency);
    if (unit) throw validationFailed(unit.message, [{ field: unit.field, message: unit.message }]);
    const early = datedBeforeRefusal('payment_date', formatDate(paymentDate) as string, 'a payment of it', [documentDated(invoice)]);
    if (early) throw validationFailed(early.message, [{ field: early.field, message: early.message }]);
    const due = dec(invoice.invoicetotal).minus(dec(invoice.amount_paid));
    if (dec(req.amount).greaterThan(due)) {
      const message = `Overpayment: amount ${amountText(req.amount)} exceeds the amount due ${amountText(due)} on invoice ${invoice.invoicenumber}`;
      throw validationFailed(message, [{ field: 'amount', message }]);
    }
    const journal = req.journal?.trim() || DEFAULT_PAYMENT_JOURNAL;
    const accounts = accountsFor(invoice.invoicetype, invoice);
    // One payment of one document: the bank at the payment's worth, the document cleared at its own
    // (docs/invoicing.md "Payments in another currency").
    const conversion = await paymentConversion(trx, ctx.orgId, {
      currency: invoice.currency,
      amount: req.amount,
      date: paymentDate,
      given: req.exchange_rate,
      documents: [invoice],
    });
    const booked = await bookedDocuments(trx, [invoice], conversion.places);
    // All of it settles the document: no credit is left on the trade account.
    const lines = paymentLines(
      settlementDirection(invoice.invoicetype),
      conversion.accounting_amount,
      journal,
      [{ account: accounts.trade, amount: documentStep(invoice, booked, req.amount) }],
      0,
    );
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
        direction: settlementDirection(invoice.invoicetype),
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
    const paidInFull = dec(req.amount).equals(due);
    const [row] = (await trx('invoices')
      .where({ id: invoice.id })
      .update({
        amount_paid: trx.raw('amount_paid + ?::numeric', [req.amount]),
        updated_at: trx.fn.now(),
        ...(paidInFull ? { invoicestatus: 'paid', paid_at: trx.fn.now() } : {}),
      })
      .returning('*')) as InvoiceRow[];
    const updated = row as InvoiceRow;
    await recordEvent(trx, invoicing.invoicePaymentRegistered.type, ctx.orgId, {
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
      await recordEvent(trx, invoicing.invoicePaid.type, ctx.orgId, {
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
