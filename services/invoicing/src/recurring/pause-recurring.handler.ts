import { invoicing } from '@bo/contracts';
import { handler, invalidState } from '@bo/runtime';
import type { InvoiceRow } from '../invoice/invoice.record';
import { contractReply, lockContract } from './contract';

export const pauseRecurringHandler = handler(invoicing.pauseRecurring, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const contract = await lockContract(trx, ctx.orgId, req.id);
    if (contract.recurring_status !== 'active')
      throw invalidState(
        `Recurring contract ${contract.invoicenumber} is ${contract.recurring_status}; only an active contract can be paused`,
      );
    const [row] = (await trx('invoices')
      .where({ id: contract.id })
      .update({ recurring_status: 'paused', updated_at: trx.fn.now() })
      .returning('*')) as InvoiceRow[];
    return contractReply('Recurring invoice paused successfully', row as InvoiceRow);
  });
});
