import { invoicing } from '@bo/contracts';
import { handler, invalidState, today } from '@bo/runtime';
import { contractReply, lockContract, makeNextChild } from './contract';

/** Makes the child of the next run date now, even ahead of that date; the scheduler then moves on. */
export const generateChildHandler = handler(invoicing.generateChildInvoice, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const contract = await lockContract(trx, ctx.orgId, req.id);
    if (contract.recurring_status !== 'active' || !contract.recurring_next_run_date) {
      throw invalidState(`Recurring contract ${contract.invoicenumber} is ${contract.recurring_status}; only an active contract makes child invoices`);
    }
    const { parent, child } = await makeNextChild(trx, contract, today());
    return { ...contractReply(`Child invoice ${child.invoicenumber} generated successfully`, parent), child };
  });
});
