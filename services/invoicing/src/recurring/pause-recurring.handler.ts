import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { contractReply, lockContract, updateContract } from './contract';
import { recurringRefusals } from './recurring-refusals';

export const pauseRecurringHandler = handler(invoicing.pauseRecurring, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const contract = await lockContract(trx, ctx.orgId, req.id);
    if (contract.recurring_status !== 'active')
      throw recurringRefusals.pauseOfInactiveContract(contract.invoicenumber, contract.recurring_status);
    const row = await updateContract(trx, contract.id, { recurring_status: 'paused' });
    return contractReply('Recurring invoice paused successfully', row);
  });
});
