import { invoicing } from '@bo/contracts';
import { amountText, dec, toNumber } from '@bo/kernel';
import { handler, recordEvent } from '@bo/runtime';
import { datedBeforeRefusal } from '../domain/dating';
import { documentDated, paymentDated } from './dated';
import { ledgerSide, minorUnitRefusal, refundLines, settlementDirection, unallocatedOf, valueOfStep } from '../domain/cash';
import { DEFAULT_PAYMENT_JOURNAL, tradeMove } from '../domain/journal';
import type { InvoiceRow } from '../invoice/invoice.record';
import { creditNoteSource, lockPostedPayment, openCustomerCreditApplication } from './customer-credit-source';
import { atRate, cashRate } from './payment-rate';
import {
  bookedDocuments,
  insertRefund,
  lockDocuments,
  paymentRecords,
  postCashEntry,
  setPaymentTotals,
  settle,
} from './payment.repository';
import { refundRecord, settledView, type PaymentRow } from './payment.record';
import { paymentRefusals } from './payment-refusals';
import { creditNoteUnallocated, paymentValue, settledShare, sourceAccount } from './payment-values';
import { journalAmount } from '../invoice/journal.repository';

/**
 * Pays out (part of) a partner's unallocated credit: a payment's rest or a validated credit note's.
 * A customer's credit goes back out of the bank, a vendor's comes back in; the refund is booked
 * against the trade account the credit sits on.
 */
export const refundPaymentHandler = handler(invoicing.refundPayment, async (req, ctx) => {
  const db = ctx.db;
  const { settings, today, date } = await openCustomerCreditApplication(db, ctx.orgId, req, {
    field: 'refund_date',
    value: req.refund_date,
    what: 'a refund',
  });
  const journal = req.journal?.trim() || DEFAULT_PAYMENT_JOURNAL;
  let payment: PaymentRow | undefined;
  let note: InvoiceRow | undefined;
  if (req.payment_id !== undefined) {
    payment = await lockPostedPayment(db, ctx.orgId, req.payment_id, 'it has no credit to refund');
  } else {
    const id = req.credit_note_id as number;
    note = creditNoteSource((await lockDocuments(db, ctx.orgId, [id])).get(id), id, today);
  }
  const unit = minorUnitRefusal('amount', req.amount, payment ? payment.currency : (note as InvoiceRow).currency);
  if (unit) throw paymentRefusals.amountFinerThanCurrency(unit);
  const early = datedBeforeRefusal('refund_date', date, 'a refund', [payment ? paymentDated(payment) : documentDated(note as InvoiceRow)]);
  if (early) throw paymentRefusals.datedBeforeEarlier(early);
  const available = payment ? unallocatedOf(payment) : creditNoteUnallocated(note as InvoiceRow);
  if (dec(req.amount).greaterThan(available))
    throw paymentRefusals.refundExceedsCustomerCredit(
      amountText(req.amount),
      amountText(available),
      payment ? `payment ${payment.id}` : note?.invoicenumber,
    );
  // A payment received is refunded out; a credit note refunds the way its document type settles (register_payment's rule).
  const direction = payment ? (payment.direction === 'in' ? 'out' : 'in') : settlementDirection((note as InvoiceRow).invoicetype);
  const account = payment
    ? sourceAccount({ kind: 'payment', direction: payment.direction })
    : sourceAccount({ kind: 'credit_note', note: note as InvoiceRow });
  const partnerId = payment?.partner_id ?? (note as InvoiceRow).partner_id;
  // The credit leaves its trade account at what it is worth on the books (its share of what its
  // source booked, valued as allocation values it); the money paid out is worth the refund day's rate,
  // and the difference is realized (docs/invoicing.md "Payments in another currency").
  const currency = payment ? payment.currency : (note as InvoiceRow).currency;
  const { places, rate } = await cashRate(db, ctx.orgId, settings, { currency, date, given: req.exchange_rate, what: 'the refund' });
  const [item, used] = payment
    ? [paymentValue(payment, places), dec(payment.allocated).plus(dec(payment.refunded))]
    : [(await bookedDocuments(db, [note as InvoiceRow], places)).get((note as InvoiceRow).id)!, settledShare(note as InvoiceRow)];
  const worth = valueOfStep(item, used, used.plus(dec(req.amount)));
  // With no rate given nor in the table, the credit's own: paid out at its worth, realizing nothing.
  const paid = rate === null ? dec(req.amount).toFixed() : rate === undefined ? worth.toFixed() : atRate(req.amount, rate, places);
  const lines = refundLines(direction, { credit: worth, paid }, account, journal);
  const journalEntryId = await postCashEntry(
    db,
    {
      org_id: ctx.orgId,
      invoice_id: note?.id ?? null,
      payment_id: payment?.id ?? null,
      kind: 'refund',
      journalname: journal,
      journaldate: date,
      reference: (req.reference || (payment ? `Refund PAY-${payment.id}` : `Refund ${note?.invoicenumber}`)).slice(0, 64),
    },
    lines,
  );
  const row = await insertRefund(db, {
    org_id: ctx.orgId,
    partner_id: partnerId,
    payment_id: payment?.id ?? null,
    credit_note_id: note?.id ?? null,
    direction,
    amount: req.amount,
    currency,
    exchange_rate: rate ?? (payment ? payment.exchange_rate : (note as InvoiceRow).exchange_rate),
    accounting_amount: paid,
    refund_date: date,
    method: req.method ?? null,
    reference: req.reference ?? null,
    journal,
    journal_entry_id: journalEntryId,
    operation_key: ctx.operationKey ?? null,
    created_by: req.userid ?? ctx.userId ?? null,
  });
  let paymentRow: PaymentRow | undefined;
  let noteRow: InvoiceRow | undefined;
  if (payment) {
    paymentRow = await setPaymentTotals(db, payment.id, { refunded: journalAmount(dec(payment.refunded).plus(dec(req.amount))) });
  } else {
    noteRow = await settle(db, note as InvoiceRow, req.amount);
  }
  await recordEvent(db, invoicing.paymentRefunded, ctx.orgId, {
    refund_id: row.id,
    partner_id: partnerId,
    payment_id: payment?.id ?? null,
    credit_note_id: note?.id ?? null,
    direction,
    side: payment ? ledgerSide(payment.direction) : ledgerSide(direction, (note as InvoiceRow).invoicetype),
    amount: toNumber(req.amount),
    currency,
    refund_date: date,
    journal_entry_id: journalEntryId,
    trade_delta: toNumber(tradeMove(lines)),
  });
  return {
    message: `Refunded ${amountText(req.amount)}`,
    refund: refundRecord(row),
    ...(paymentRow ? { payment: (await paymentRecords(db, [paymentRow]))[0] as invoicing.PaymentRecord } : {}),
    ...(noteRow ? { credit_note: settledView(noteRow, today) } : {}),
  };
});
