import { invoicing } from '@bo/contracts';
import { handler, recordEvent } from '@bo/runtime';
import { readSettings } from '@bo/billing';
import { findInvoice } from '../invoice/invoice.repository';
import { assertAfterLockDate } from '../invoice/lock-date';
import { decideWriteOff, writeOffReply, writtenOffEvent } from './decide-write-off';
import { accountingPlaces } from './payment-rate';
import { bookedDocuments, markWrittenOff, postCashEntry } from './payment.repository';

/**
 * Writes off what is still due on an open or overdue customer invoice: a bad-debt expense against
 * its receivable, status `written_off`, and `invoicing.invoice.written_off` for the partner ledger.
 * Drafts, proformas, paid, cancelled and written-off invoices, and vendor documents, are refused.
 * Load (the invoice under its lock, what it booked) → decide (decide-write-off.ts) → store.
 */
export const writeOffInvoiceHandler = handler(invoicing.writeOffInvoice, async (req, ctx) => {
  const db = ctx.db;
  // Held first, before the invoice's lock, as every posting takes it.
  const settings = await readSettings(db, ctx.orgId, { hold: true });
  const today = settings.today();
  const date = req.write_off_date ?? today;
  assertAfterLockDate(settings, date, 'write_off_date', 'a write-off');
  const invoice = await findInvoice(db, ctx.orgId, req.id, { lock: true });
  const booked = await bookedDocuments(db, [invoice], accountingPlaces(settings.taxPolicy.accounting_currency));
  const writeOff = decideWriteOff({ invoice, today, booked }, date);
  const journalEntryId = await postCashEntry(db, { org_id: ctx.orgId, ...writeOff.entry }, writeOff.lines);
  const updated = await markWrittenOff(db, invoice.id, { amount: writeOff.amount, reason: req.reason ?? null, journalEntryId });
  await recordEvent(
    db,
    invoicing.invoiceWrittenOff,
    ctx.orgId,
    writtenOffEvent(updated, writeOff, { journalEntryId, reason: req.reason ?? null }),
  );
  return writeOffReply(updated, writeOff, journalEntryId, today);
});
