import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { assertNotFenced, readSettings } from '@bo/billing';
import { firstRunIndexNotBefore, runDate } from '../domain/recurrence';
import { contractReply, lockContract, updateContract } from './contract';
import { recurringRefusals } from './recurring-refusals';

/** Periods that passed while paused are skipped, not caught up: the next run is the first date not in the past. */
export const resumeRecurringHandler = handler(invoicing.resumeRecurring, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const contract = await lockContract(trx, ctx.orgId, req.id);
    if (contract.recurring_status !== 'paused')
      throw recurringRefusals.resumeOfUnpausedContract(contract.invoicenumber, contract.recurring_status);
    // A paused contract does not keep its partner from being deleted: a delete about to commit fences
    // the partner, and the contract stays paused until the partner-deleted event cancels it.
    await assertNotFenced(trx, ctx.orgId, contract.partner_id);
    const start = contract.recurring_start_date as string;
    const frequency = contract.recurring_frequency!;
    const index = firstRunIndexNotBefore(start, frequency, contract.recurring_next_index, (await readSettings(trx, ctx.orgId)).today());
    const row = await updateContract(trx, contract.id, {
      recurring_status: 'active',
      recurring_next_index: index,
      recurring_next_run_date: runDate(start, frequency, index),
    });
    return contractReply('Recurring invoice resumed successfully', row);
  });
});
