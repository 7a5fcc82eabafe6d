import { formatDate } from '@bo/kernel';
import { nowIn, type OrganizationSettings } from '@bo/billing';
import type { Dated } from '../domain/dating';
import { lockDateRefusal } from '../domain/lock-date';
import { invoiceRefusals } from '../invoice/invoice-refusals';
import type { InvoiceRow } from '../invoice/invoice.record';
import type { AllocationRow, PaymentRow } from './payment.record';

/** A document as dating judges it: its number and the day its entry posted (its own date). */
export const documentDated = (doc: Pick<InvoiceRow, 'invoicenumber' | 'invoicedatetime'>): Dated => ({
  label: doc.invoicenumber,
  date: formatDate(doc.invoicedatetime) as string,
});

export const paymentDated = (payment: Pick<PaymentRow, 'id' | 'payment_date'>): Dated => ({
  label: `PAY-${payment.id}`,
  date: formatDate(payment.payment_date) as string,
});

export const allocationDated = (allocation: Pick<AllocationRow, 'id' | 'allocation_date'>): Dated => ({
  label: `allocation ${allocation.id}`,
  date: formatDate(allocation.allocation_date) as string,
});

/**
 * The day a payment falls on and the organization's today at `instant` (in its time zone): the date
 * given, else today. Refused on `payment_date` (invoice.lockDatePassed) on or before the lock date,
 * before anything else of the payment is judged.
 */
export function paymentDay(
  settings: Pick<OrganizationSettings, 'lock_date' | 'time_zone'> | null | undefined,
  given: string | undefined,
  instant: Date,
): { today: string; paymentDate: string } {
  const today = nowIn(settings?.time_zone ?? null, instant).date;
  const paymentDate = given ?? today;
  const locked = lockDateRefusal(formatDate(settings?.lock_date ?? null), paymentDate, 'payment_date', 'a payment');
  if (locked) throw invoiceRefusals.lockDatePassed(locked);
  return { today, paymentDate };
}
