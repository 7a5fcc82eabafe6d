import { type Knex } from '@bo/runtime';
import { readSettings, type SettingsReading } from '@bo/billing';
import { creditNoteSettles } from '../domain/cash';
import { effectiveStatus } from '../domain/status';
import type { InvoiceRow } from '../invoice/invoice.record';
import { assertAfterLockDate } from '../invoice/lock-date';
import { findPayment } from './payment.repository';
import type { PaymentRow } from './payment.record';
import { paymentRefusals } from './payment-refusals';

// What allocating and refunding a partner's credit share: the credit comes from exactly one source,
// a posted payment or a validated credit note, and the operation's date must be after the lock date.
// The locking stays with each handler, which knows the order it locks its rows in.

/**
 * Judges the request's source and date: exactly one of `payment_id` and `credit_note_id`; the date
 * (default the organization's today) after the lock date, on the settings read held, before any
 * other lock. Returns that reading, for the rest of the posting, with today and the date.
 */
export async function openCustomerCreditApplication(
  db: Knex,
  orgId: number,
  req: { payment_id?: number; credit_note_id?: number },
  dated: { field: string; value: string | undefined; what: string },
): Promise<{ settings: SettingsReading; today: string; date: string }> {
  if ((req.payment_id === undefined) === (req.credit_note_id === undefined)) throw paymentRefusals.oneCustomerCreditSourceRequired();
  const settings = await readSettings(db, orgId, { hold: true });
  const today = settings.today();
  const date = dated.value ?? today;
  assertAfterLockDate(settings, date, dated.field, dated.what);
  return { settings, today, date };
}

/** The payment a request draws credit from, locked; a voided one is refused with `refusal`. */
export async function lockPostedPayment(db: Knex, orgId: number, id: number, refusal: string): Promise<PaymentRow> {
  const payment = await findPayment(db, orgId, id, { lock: true });
  if (payment.status !== 'posted') throw paymentRefusals.customerCreditPaymentVoided(payment.id, payment.status, refusal);
  return payment;
}

/** The credit note a request draws credit from, already locked by the caller: a credit note (creditout, creditin), validated. */
export function creditNoteSource(note: InvoiceRow | undefined, id: number, today: string): InvoiceRow {
  if (!note) throw paymentRefusals.creditNoteNotFound(id);
  if (!creditNoteSettles(note.invoicetype)) throw paymentRefusals.notACreditNote(note.invoicenumber, note.invoicetype);
  const status = effectiveStatus(note.invoicestatus, note.invoicedue, today);
  if (status !== 'open' && status !== 'overdue' && status !== 'paid')
    throw paymentRefusals.creditNoteNotValidated(note.invoicenumber, status);
  return note;
}
