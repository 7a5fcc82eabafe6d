import { invoicing } from '@bo/contracts';
import { handler, invalidState } from '@bo/runtime';
import { contractReply, lockContract, updateContract } from './contract';

export const pauseRecurringHandler = handler(invoicing.pauseRecurring, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const contract = await lockContract(trx, ctx.orgId, req.id);
    if (contract.recurring_status !== 'active')
      throw invalidState(
        `Recurring contract ${contract.invoicenumber} is ${contract.recurring_status}; only an active contract can be paused`,
      );
    const row = await updateContract(trx, contract.id, { recurring_status: 'paused' });
    return contractReply('Recurring invoice paused successfully', row);
  });
});
