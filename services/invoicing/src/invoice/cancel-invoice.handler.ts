import { invoicing } from '@bo/contracts';
import { formatDateTime } from '@bo/kernel';
import { handler, invalidState, recordEvent, organizationToday } from '@bo/runtime';
import { cancelRefusal } from '../domain/status';
import { eventRef, statusOf, type InvoiceRow } from './invoice.record';
import { findInvoice } from './invoice.repository';

export const cancelInvoiceHandler = handler(invoicing.cancelInvoice, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const invoice = await findInvoice(trx, ctx.orgId, req.id, { lock: true });
    const refusal = cancelRefusal(statusOf(invoice, await organizationToday(trx, ctx.orgId)));
    if (refusal) throw invalidState(`Invoice ${invoice.invoicenumber} cannot be cancelled: ${refusal}`);
    const [row] = (await trx('invoices')
      .where({ id: invoice.id })
      .update({
        invoicestatus: 'cancelled',
        cancelled_at: trx.fn.now(),
        updated_at: trx.fn.now(),
        // A cancelled template makes no more children.
        ...(invoice.recurring_enabled && (invoice.recurring_status === 'active' || invoice.recurring_status === 'paused')
          ? { recurring_status: 'cancelled', recurring_next_run_date: null, recurring_cancellation_reason: 'invoice cancelled' }
          : {}),
      })
      .returning('*')) as InvoiceRow[];
    const cancelled = row as InvoiceRow;
    await recordEvent(trx, invoicing.invoiceCancelled.type, ctx.orgId, {
      ...eventRef(cancelled),
      cancelled_at: formatDateTime(cancelled.cancelled_at) as string,
    });
    return {
      message: `Invoice ${cancelled.invoicenumber} cancelled successfully`,
      invoice: { id: cancelled.id, invoicenumber: cancelled.invoicenumber, invoicestatus: 'cancelled' as const },
    };
  });
});
