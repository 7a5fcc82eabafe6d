import { invoicing } from '@bo/contracts';
import { toNumber } from '@bo/kernel';
import { handler, invalidState, recordEvent } from '@bo/runtime';
import { dueOfDocument, writeOffLines, writeOffRefusal } from '../domain/cash';
import { datedBeforeRefusal } from '../domain/dating';
import { documentDated } from './dated';
import { accountsFor, tradeMove } from '../domain/journal';
import type { InvoiceRow } from '../invoice/invoice.record';
import { findInvoice } from '../invoice/invoice.repository';
import { journalAmount } from '../invoice/journal.repository';
import { assertAfterLockDate, postingToday } from '../invoice/lock-date';
import { accountingPlaces } from './payment-rate';
import { bookedDocuments, documentStep, postCashEntry, refuseField, settledView } from './payment.repository';

/**
 * Writes off what is still due on an open or overdue customer invoice: a bad-debt expense against
 * its receivable, status `written_off`, and `invoicing.invoice.written_off` for the partner ledger.
 * Drafts, proformas, paid, cancelled and written-off invoices, and vendor documents, are refused.
 */
export const writeOffInvoiceHandler = handler(invoicing.writeOffInvoice, async (req, ctx) => {
  const db = ctx.db;
  const today = await postingToday(db, ctx.orgId);
  const date = req.write_off_date ?? today;
  await assertAfterLockDate(db, ctx.orgId, date, 'write_off_date', 'a write-off');
  const invoice = await findInvoice(db, ctx.orgId, req.id, { lock: true });
  const refusal = writeOffRefusal(invoice, today);
  if (refusal) throw invalidState(`Invoice ${invoice.invoicenumber} cannot be written off: ${refusal}`);
  const early = datedBeforeRefusal('write_off_date', date, 'a write-off', [documentDated(invoice)]);
  if (early) refuseField(early.field, early.message);
  const amount = journalAmount(dueOfDocument(invoice));
  // The bad debt is what the rest of the receivable is worth on the books, at the invoice's own rate.
  const booked = await bookedDocuments(db, [invoice], await accountingPlaces(db, ctx.orgId));
  const lines = writeOffLines(documentStep(invoice, booked, amount), accountsFor(invoice.invoicetype, invoice).trade);
  const journalEntryId = await postCashEntry(
    db,
    {
      org_id: ctx.orgId,
      invoice_id: invoice.id,
      payment_id: null,
      kind: 'write_off',
      journalname: accountsFor(invoice.invoicetype, invoice).journal,
      journaldate: date,
      reference: `Write-off ${invoice.invoicenumber}`.slice(0, 64),
    },
    lines,
  );
  const [row] = (await db('invoices')
    .where({ id: invoice.id })
    .update({
      invoicestatus: 'written_off',
      written_off_amount: amount,
      written_off_at: db.fn.now(),
      write_off_reason: req.reason ?? null,
      write_off_journal_entry_id: journalEntryId,
      updated_at: db.fn.now(),
    })
    .returning('*')) as InvoiceRow[];
  const updated = row as InvoiceRow;
  await recordEvent(db, invoicing.invoiceWrittenOff.type, ctx.orgId, {
    invoice_id: updated.id,
    invoicenumber: updated.invoicenumber,
    invoicetype: updated.invoicetype,
    partner_id: updated.partner_id,
    invoicetotal: toNumber(updated.invoicetotal),
    amount: toNumber(amount),
    currency: updated.currency,
    write_off_date: date,
    reason: req.reason ?? null,
    journal_entry_id: journalEntryId,
    trade_delta: toNumber(tradeMove(lines)),
    version: updated.version,
  });
  return {
    message: `Invoice ${updated.invoicenumber} written off: ${amount}`,
    invoice: { ...settledView(updated, today), written_off_amount: toNumber(amount), journal_entry_id: journalEntryId },
  };
});
