import { formatDate } from '@bo/kernel';
import type { Dated } from '../domain/dating';
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
