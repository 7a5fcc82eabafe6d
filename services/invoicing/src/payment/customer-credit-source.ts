import { creditNoteSettles } from '../domain/cash';
import { effectiveStatus } from '../domain/status';
import type { InvoiceRow } from '../invoice/invoice.record';
import { paymentRefusals } from './payment-refusals';

/** The credit note a request draws credit from, as its load read it: a credit note (creditout, creditin), validated. */
export function creditNoteSource(note: InvoiceRow | undefined, id: number, today: string): InvoiceRow {
  if (!note) throw paymentRefusals.creditNoteNotFound(id);
  if (!creditNoteSettles(note.invoicetype)) throw paymentRefusals.notACreditNote(note.invoicenumber, note.invoicetype);
  const status = effectiveStatus(note.invoicestatus, note.invoicedue, today);
  if (status !== 'open' && status !== 'overdue' && status !== 'paid')
    throw paymentRefusals.creditNoteNotValidated(note.invoicenumber, status);
  return note;
}
