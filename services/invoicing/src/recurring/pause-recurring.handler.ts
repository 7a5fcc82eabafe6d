import { invoicing } from '@bo/contracts';
import { handler, unlessRefused } from '@bo/runtime';
import { contractChangeAlone, contractReply, lockContract, readContract, updateContract } from './contract';
import { decidePause } from './decide-contract';

const PAUSED = 'Recurring invoice paused successfully';

/**
 * Load → decide (decidePause) → store, optimistic as a rule: the contract read with no lock and its
 * change written as one statement only while it is the row read (`alone`, its reply the contract as
 * the change leaves it); a refusal, or a contract changed meanwhile, is judged under its lock (`apply`).
 */
export const pauseRecurringHandler = handler(invoicing.pauseRecurring, {
  alone: async (req, ctx) => {
    const loaded = await readContract(ctx.db, ctx.orgId, req.id);
    const changes = loaded && unlessRefused(() => decidePause(loaded.row));
    if (!loaded || !changes) return undefined;
    return {
      ...contractChangeAlone(loaded.row.id, changes, loaded.read),
      events: [],
      reply: contractReply(PAUSED, { ...loaded.row, ...changes }),
    };
  },
  apply: async (req, ctx) => {
    return ctx.db.transaction(async (trx) => {
      const contract = await lockContract(trx, ctx.orgId, req.id);
      return contractReply(PAUSED, await updateContract(trx, contract.id, decidePause(contract)));
    });
  },
});
