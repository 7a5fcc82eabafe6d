import { formatDateTime } from '@bo/kernel';
import { filledIn } from '@bo/runtime';
import { cancelRefusal } from '../domain/status';
import { eventRef, statusOf, type InvoiceRow } from './invoice.record';
import { invoiceRefusals } from './invoice-refusals';

/** What cancelling an invoice decides on: the invoice as read or locked, and the organization's day. */
export type CancellationState = Pick<
  InvoiceRow,
  'invoicenumber' | 'invoicestatus' | 'invoicedue' | 'recurring_enabled' | 'recurring_status'
>;

export interface Cancellation {
  /** A running recurring template is cancelled with its invoice, so it makes no more children. */
  stopRecurrence: boolean;
}

/** Whether the invoice may be cancelled on `today` (only a draft or proforma may), and what its cancellation stops. */
export function decideCancellation(invoice: CancellationState, today: string): Cancellation {
  const refusal = cancelRefusal(statusOf(invoice, today));
  if (refusal) throw invoiceRefusals.cancellationRefused(invoice.invoicenumber, refusal);
  return {
    stopRecurrence: invoice.recurring_enabled && (invoice.recurring_status === 'active' || invoice.recurring_status === 'paused'),
  };
}

/** `invoicing.invoice.cancelled` of the invoice as stored. */
export function cancelledEvent(cancelled: InvoiceRow) {
  return { ...eventRef(cancelled), cancelled_at: formatDateTime(cancelled.cancelled_at) as string };
}

/** The same of the invoice as read, its version and cancellation time left for the store to fill in (cancellationAlone). */
export function cancelledEventToFill(read: InvoiceRow) {
  return { ...eventRef(read), version: filledIn<number>(), cancelled_at: filledIn<string>() };
}

export function cancellationReply(cancelled: Pick<InvoiceRow, 'id' | 'invoicenumber'>) {
  return {
    message: `Invoice ${cancelled.invoicenumber} cancelled successfully`,
    invoice: { id: cancelled.id, invoicenumber: cancelled.invoicenumber, invoicestatus: 'cancelled' as const },
  };
}
