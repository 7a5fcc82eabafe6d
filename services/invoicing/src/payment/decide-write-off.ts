import type { EventDataOf, invoicing, ReplyOf } from '@bo/contracts';
import { formatDate, toNumber } from '@bo/kernel';
import { nowIn, type OrganizationSettings } from '@bo/billing';
import { dueOfDocument, writeOffLines, writeOffRefusal, type BookedValue, type SettleableDocument } from '../domain/cash';
import { datedBeforeRefusal } from '../domain/dating';
import { accountsFor, tradeMove, type JournalLine } from '../domain/journal';
import type { InvoiceRow } from '../invoice/invoice.record';
import { invoiceRefusals } from '../invoice/invoice-refusals';
import { journalAmount, type EntryHeader } from '../invoice/journal.repository';
import { lockDateRefusal } from '../domain/lock-date';
import { documentDated } from './dated';
import { settledView } from './payment.record';
import { paymentRefusals } from './payment-refusals';
import { accountingPlaces } from './payment-rate';
import { documentStep } from './payment-values';
import { bookedValue } from './payment.repository';

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

/**
 * What the load read for a write-off (write-off.repository.ts), in one statement: the organization's
 * settings, the invoice, what its entry booked, the id of the write-off's entry drawn, and the
 * transaction's timestamp, which the store writes as the time of the write-off.
 */
export interface WriteOffLoad {
  /** The organization's settings (lock date, time zone, accounting currency); undefined or null when unseen. */
  settings: Pick<OrganizationSettings, 'lock_date' | 'time_zone' | 'default_currency'> | null | undefined;
  /** Null when the organization has no invoice of that id. */
  invoice: InvoiceRow | null;
  /** What the invoice's entry booked in the accounting currency (bookedQuery); null: no entry, or posted as it is. */
  booked: string | null;
  entryId: number;
  now: Date;
}

/** Everything a write-off writes and answers. */
export interface WriteOffPlan {
  entryId: number;
  entry: EntryHeader;
  lines: JournalLine[];
  /** The invoice as the write-off leaves it (the store also writes `written_off_at`, the reason and the entry's id). */
  invoice: InvoiceRow;
  /** Why it was written off, as given; null: none. */
  reason: string | null;
  event: EventDataOf<typeof invoicing.invoiceWrittenOff>;
  reply: ReplyOf<typeof invoicing.writeOffInvoice>;
}

/**
 * A write-off, decided on what the load read (`instant`: the clock the organization's today is read
 * from): refused on `write_off_date` on or before the lock date, before anything else; an invoice the
 * organization does not have is not found; then decideWriteOff. Its entry, the invoice as it leaves
 * it (its version one more), the event and the reply out.
 */
export function decideWriteOffPlan(
  load: WriteOffLoad,
  req: { id: number; write_off_date?: string; reason?: string | null },
  ctx: { orgId: number; instant: Date },
): WriteOffPlan {
  const today = nowIn(load.settings?.time_zone ?? null, ctx.instant).date;
  const date = req.write_off_date ?? today;
  const locked = lockDateRefusal(formatDate(load.settings?.lock_date ?? null), date, 'write_off_date', 'a write-off');
  if (locked) throw invoiceRefusals.lockDatePassed(locked);
  const invoice = load.invoice;
  if (!invoice) throw invoiceRefusals.invoiceNotFound(req.id);
  const booked = new Map([[invoice.id, bookedValue(invoice, load.booked, accountingPlaces(load.settings?.default_currency ?? null))]]);
  const writeOff = decideWriteOff({ invoice, today, booked }, date);
  const reason = req.reason ?? null;
  const updated: InvoiceRow = {
    ...invoice,
    invoicestatus: 'written_off',
    written_off_amount: writeOff.amount,
    updated_at: load.now,
    // The database counts one more for the transaction that changes the row (migration 017).
    version: invoice.version + 1,
  };
  return {
    entryId: load.entryId,
    entry: { org_id: ctx.orgId, ...writeOff.entry },
    lines: writeOff.lines,
    invoice: updated,
    reason,
    event: writtenOffEvent(updated, writeOff, { journalEntryId: load.entryId, reason }),
    reply: writeOffReply(updated, writeOff, load.entryId, today),
  };
}
