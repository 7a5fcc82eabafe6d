import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { contractReply, lockContract, updateContract } from './contract';
import { recurringRefusals } from './recurring-refusals';

export const cancelRecurringHandler = handler(invoicing.cancelRecurring, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const contract = await lockContract(trx, ctx.orgId, req.id);
    if (contract.recurring_status !== 'active' && contract.recurring_status !== 'paused')
      throw recurringRefusals.contractAlreadyEnded(contract.invoicenumber, contract.recurring_status);
    const row = await updateContract(trx, contract.id, {
      recurring_status: 'cancelled',
      recurring_next_run_date: null,
      recurring_cancellation_reason: req.cancellation_reason?.trim() || null,
    });
    return contractReply('Recurring contract cancelled successfully', row);
  });
});
