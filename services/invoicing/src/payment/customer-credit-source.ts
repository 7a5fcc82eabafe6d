import { invalidState, notFound, type Knex } from '@bo/runtime';
import { creditNoteSettles } from '../domain/cash';
import { effectiveStatus } from '../domain/status';
import type { InvoiceRow } from '../invoice/invoice.record';
import { assertAfterLockDate, postingToday } from '../invoice/lock-date';
import { findPayment } from './payment.repository';
import type { PaymentRow } from './payment.record';
import { refuseField } from './payment-refusals';

// What allocating and refunding a partner's credit share: the credit comes from exactly one source,
// a posted payment or a validated credit note, and the operation's date must be after the lock date.
// The locking stays with each handler, which knows the order it locks its rows in.

/**
 * Judges the request's source and date: exactly one of `payment_id` and `credit_note_id`; the date
 * (default the organization's today, read with the settings held: postingToday) after the lock
 * date. Returns today and the date.
 */
export async function openCustomerCreditApplication(
  db: Knex,
  orgId: number,
  req: { payment_id?: number; credit_note_id?: number },
  dated: { field: string; value: string | undefined; what: string },
): Promise<{ today: string; date: string }> {
  if ((req.payment_id === undefined) === (req.credit_note_id === undefined)) {
    refuseField('payment_id', 'name exactly one source: payment_id or credit_note_id');
  }
  const today = await postingToday(db, orgId);
  const date = dated.value ?? today;
  await assertAfterLockDate(db, orgId, date, dated.field, dated.what);
  return { today, date };
}

/** The payment a request draws credit from, locked; a voided one is refused with `refusal`. */
export async function lockPostedPayment(db: Knex, orgId: number, id: number, refusal: string): Promise<PaymentRow> {
  const payment = await findPayment(db, orgId, id, { lock: true });
  if (payment.status !== 'posted') throw invalidState(`Payment ${payment.id} is ${payment.status}; ${refusal}`);
  return payment;
}

/** The credit note a request draws credit from, already locked by the caller: a credit note (creditout, creditin), validated. */
export function creditNoteSource(note: InvoiceRow | undefined, id: number, today: string): InvoiceRow {
  if (!note) throw notFound('Credit note', id);
  if (!creditNoteSettles(note.invoicetype))
    refuseField('credit_note_id', `${note.invoicenumber} is an ${note.invoicetype}, not a credit note (creditout, creditin)`);
  const status = effectiveStatus(note.invoicestatus, note.invoicedue, today);
  if (status !== 'open' && status !== 'overdue' && status !== 'paid')
    throw invalidState(`${note.invoicenumber} is ${status}; only a validated credit note gives credit`);
  return note;
}
