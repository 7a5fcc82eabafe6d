import { invoicing } from '@bo/contracts';
import { handler, unlessRefused } from '@bo/runtime';
import { contractChangeAlone, contractReply, lockContract, readContract, updateContract } from './contract';
import { decideContractCancel } from './decide-contract';

const CANCELLED = 'Recurring contract cancelled successfully';

/**
 * Load → decide (decideContractCancel) → store, optimistic as a rule, as pause-recurring.handler.ts:
 * one statement only while the contract is the row read, else judged under its lock.
 */
export const cancelRecurringHandler = handler(invoicing.cancelRecurring, {
  alone: async (req, ctx) => {
    const loaded = await readContract(ctx.db, ctx.orgId, req.id);
    const changes = loaded && unlessRefused(() => decideContractCancel(loaded.row, req.cancellation_reason));
    if (!loaded || !changes) return undefined;
    return {
      ...contractChangeAlone(loaded.row.id, changes, loaded.read),
      events: [],
      reply: contractReply(CANCELLED, { ...loaded.row, ...changes }),
    };
  },
  apply: async (req, ctx) => {
    return ctx.db.transaction(async (trx) => {
      const contract = await lockContract(trx, ctx.orgId, req.id);
      return contractReply(CANCELLED, await updateContract(trx, contract.id, decideContractCancel(contract, req.cancellation_reason)));
    });
  },
});
