import { invoicing } from '@bo/contracts';
import { handler, invalidState } from '@bo/runtime';
import type { InvoiceRow } from '../invoice/invoice.record';
import { contractReply, lockContract } from './contract';

export const cancelRecurringHandler = handler(invoicing.cancelRecurring, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const contract = await lockContract(trx, ctx.orgId, req.id);
    if (contract.recurring_status !== 'active' && contract.recurring_status !== 'paused') {
      throw invalidState(`Recurring contract ${contract.invoicenumber} is already ${contract.recurring_status}`);
    }
    const [row] = (await trx('invoices')
      .where({ id: contract.id })
      .update({
        recurring_status: 'cancelled',
        recurring_next_run_date: null,
        recurring_cancellation_reason: req.cancellation_reason?.trim() || null,
        updated_at: trx.fn.now(),
      })
      .returning('*')) as InvoiceRow[];
    return contractReply('Recurring contract cancelled successfully', row as InvoiceRow);
  });
});
