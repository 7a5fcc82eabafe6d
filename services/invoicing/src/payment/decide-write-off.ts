import { toNumber } from '@bo/kernel';
import { dueOfDocument, writeOffLines, writeOffRefusal, type BookedValue, type SettleableDocument } from '../domain/cash';
import { datedBeforeRefusal } from '../domain/dating';
import { accountsFor, tradeMove, type JournalLine } from '../domain/journal';
import type { InvoiceRow } from '../invoice/invoice.record';
import { journalAmount } from '../invoice/journal.repository';
import { documentDated } from './dated';
import { settledView } from './payment.record';
import { paymentRefusals } from './payment-refusals';
import { documentStep } from './payment-values';

/** What writing off an invoice decides on, read under the invoice's lock (write-off-invoice.handler.ts). */
export interface WriteOffState {
  invoice: SettleableDocument & Pick<InvoiceRow, 'invoicedatetime' | 'tradeaccount' | 'chartofaccounts' | 'invoicejournal'>;
  /** The organization's day, by which an open invoice reads overdue. */
  today: string;
  /** What the invoice booked in the accounting currency (`bookedDocuments`). */
  booked: ReadonlyMap<number, BookedValue>;
}

export interface WriteOff {
  /** What is written off: all that is still due, in the invoice's currency. */
  amount: string;
  /** The bad debt against the receivable, at what the rest of it is worth on the books. */
  lines: JournalLine[];
  entry: { invoice_id: number; payment_id: null; kind: 'write_off'; journalname: string; journaldate: string; reference: string };
}

/**
 * An open or overdue customer invoice's due amount becomes a bad debt, dated `date` (never before the
 * invoice): anything else is refused, the invoice's state first (invalid_state), then the date
 * (validation_failed on `write_off_date`).
 */
export function decideWriteOff(state: WriteOffState, date: string): WriteOff {
  const { invoice } = state;
  const refusal = writeOffRefusal(invoice, state.today);
  if (refusal) throw paymentRefusals.writeOffRefused(invoice.invoicenumber, refusal);
  const early = datedBeforeRefusal('write_off_date', date, 'a write-off', [documentDated(invoice)]);
  if (early) throw paymentRefusals.datedBeforeEarlier(early);
  const amount = journalAmount(dueOfDocument(invoice));
  const accounts = accountsFor(invoice.invoicetype, invoice);
  return {
    amount,
    lines: writeOffLines(documentStep(invoice, state.booked, amount), accounts.trade),
    entry: {
      invoice_id: invoice.id,
      payment_id: null,
      kind: 'write_off',
      journalname: accounts.journal,
      journaldate: date,
      reference: `Write-off ${invoice.invoicenumber}`.slice(0, 64),
    },
  };
}

/** `invoicing.invoice.written_off` of the invoice as stored. */
export function writtenOffEvent(updated: InvoiceRow, writeOff: WriteOff, posted: { journalEntryId: number; reason: string | null }) {
  return {
    invoice_id: updated.id,
    invoicenumber: updated.invoicenumber,
    invoicetype: updated.invoicetype,
    partner_id: updated.partner_id,
    invoicetotal: toNumber(updated.invoicetotal),
    amount: toNumber(writeOff.amount),
    currency: updated.currency,
    write_off_date: writeOff.entry.journaldate,
    reason: posted.reason,
    journal_entry_id: posted.journalEntryId,
    trade_delta: toNumber(tradeMove(writeOff.lines)),
    version: updated.version,
  };
}

export function writeOffReply(updated: InvoiceRow, writeOff: WriteOff, journalEntryId: number, today: string) {
  return {
    message: `Invoice ${updated.invoicenumber} written off: ${writeOff.amount}`,
    invoice: { ...settledView(updated, today), written_off_amount: toNumber(writeOff.amount), journal_entry_id: journalEntryId },
  };
}
