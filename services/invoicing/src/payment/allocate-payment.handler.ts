import { invoicing } from '@bo/contracts';
import { dec, sum } from '@bo/kernel';
import { handler, recordEvent } from '@bo/runtime';
import {
  allocationRefusals,
  creditNoteSettles,
  INVOICE_OF_DIRECTION,
  unallocatedOf,
  type BookedValue,
  type CreditSource,
} from '../domain/cash';
import { datedBeforeRefusal } from '../domain/dating';
import { DEFAULT_PAYMENT_JOURNAL } from '../domain/journal';
import { documentDated, paymentDated } from './dated';
import type { InvoiceRow } from '../invoice/invoice.record';
import { creditNoteSource, lockPostedPayment, openCustomerCreditApplication } from './customer-credit-source';
import { accountingPlaces } from './payment-rate';
import { bookAllocations, bookedDocuments, lockDocuments, paymentRecords, setPaymentTotals, settle } from './payment.repository';
import { allocationRecord, settledView, type PaymentRow } from './payment.record';
import { allocationEvents } from './payment.events';
import { refuse } from './payment-refusals';
import { creditNoteUnallocated, paymentValue, settledShare, sourceAccount } from './payment-values';
import { journalAmount } from '../invoice/journal.repository';

/**
 * Allocates a payment's or a validated credit note's unallocated amount to open documents of the
 * same partner and direction. Locks the payment first, then every document (the credit note among
 * them) in id order; judges the whole request (domain/cash.ts) and books it, or refuses it all.
 */
export const allocatePaymentHandler = handler(invoicing.allocatePayment, async (req, ctx) => {
  const db = ctx.db;
  const { settings, today, date } = await openCustomerCreditApplication(db, ctx.orgId, req, {
    field: 'allocation_date',
    value: req.allocation_date,
    what: 'an allocation',
  });
  const payment =
    req.payment_id !== undefined
      ? await lockPostedPayment(db, ctx.orgId, req.payment_id, 'only a posted payment can be allocated')
      : undefined;
  const documents = await lockDocuments(db, ctx.orgId, [
    ...req.allocations.map((a) => a.invoice_id),
    ...(req.credit_note_id ? [req.credit_note_id] : []),
  ]);
  const note =
    req.credit_note_id !== undefined ? creditNoteSource(documents.get(req.credit_note_id), req.credit_note_id, today) : undefined;
  // The note itself is never a target.
  if (note) documents.delete(note.id);
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
        partner_id: (note as InvoiceRow).partner_id,
        settles: creditNoteSettles((note as InvoiceRow).invoicetype) as 'invoiceout' | 'invoicein',
        currency: (note as InvoiceRow).currency,
        unallocated: creditNoteUnallocated(note as InvoiceRow),
        amountField: 'allocations',
        label: (note as InvoiceRow).invoicenumber,
      };
  const refusals = allocationRefusals(source, req.allocations, documents, today);
  const early = datedBeforeRefusal('allocation_date', date, 'an allocation', [
    payment ? paymentDated(payment) : documentDated(note as InvoiceRow),
    ...[...documents.values()].map(documentDated),
  ]);
  if (early) refusals.push(early);
  if (refusals.length) refuse(refusals);

  // The credit is used up at its source's worth, each document cleared at its own (docs/invoicing.md
  // "Payments in another currency").
  const places = accountingPlaces(settings.taxPolicy.accounting_currency);
  const worths = await bookedDocuments(db, [...documents.values(), ...(note ? [note] : [])], places);
  const value = payment
    ? { item: paymentValue(payment, places), used: dec(payment.allocated).plus(dec(payment.refunded)) }
    : { item: worths.get((note as InvoiceRow).id) as BookedValue, used: settledShare(note as InvoiceRow) };

  const booked = await bookAllocations(db, {
    orgId: ctx.orgId,
    source: payment
      ? {
          payment_id: payment.id,
          credit_note_id: null,
          account: sourceAccount({ kind: 'payment', direction: payment.direction }),
          value,
          reference: `PAY-${payment.id}`,
        }
      : {
          payment_id: null,
          credit_note_id: (note as InvoiceRow).id,
          account: sourceAccount({ kind: 'credit_note', note: note as InvoiceRow }),
          value,
          reference: (note as InvoiceRow).invoicenumber,
        },
    documents,
    booked: worths,
    requested: req.allocations,
    date,
    journal: payment?.journal ?? DEFAULT_PAYMENT_JOURNAL,
    operationKey: ctx.operationKey,
  });
  const total = journalAmount(sum(req.allocations.map((a) => dec(a.amount))));
  let paymentRow: PaymentRow | undefined;
  let noteRow: InvoiceRow | undefined;
  if (payment) {
    paymentRow = await setPaymentTotals(db, payment.id, { allocated: journalAmount(dec(payment.allocated).plus(dec(total))) });
  } else {
    noteRow = await settle(db, note as InvoiceRow, total);
  }
  await recordEvent(db, invoicing.paymentAllocated, ctx.orgId, {
    partner_id: source.partner_id,
    payment_id: payment?.id ?? null,
    credit_note_id: note?.id ?? null,
    credit_note_number: note?.invoicenumber ?? null,
    currency: source.currency,
    allocation_date: date,
    allocations: allocationEvents(booked, documents),
  });
  const numbers = new Map([...documents.values()].map((d) => [d.id, d.invoicenumber]));
  return {
    message: `Allocated ${total} to ${booked.length} document(s)`,
    allocations: booked.map((a) => allocationRecord({ ...a, invoicenumber: numbers.get(a.invoice_id) as string })),
    ...(paymentRow ? { payment: (await paymentRecords(db, [paymentRow]))[0] as invoicing.PaymentRecord } : {}),
    ...(noteRow ? { credit_note: settledView(noteRow, today) } : {}),
    invoices: [...new Set(req.allocations.map((a) => a.invoice_id))].map((id) => settledView(documents.get(id) as InvoiceRow, today)),
  };
});
