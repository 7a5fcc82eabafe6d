import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { readSettings, requireLivePartner } from '@bo/billing';
import { generateTooEarly } from '../domain/recurrence';
import type { InvoiceRow } from '../invoice/invoice.record';
import { findInvoice, linesOf } from '../invoice/invoice.repository';
import { checkChildLines } from './child-lines';
import { contractReply, lockContract, makeNextChild } from './contract';
import { recurringRefusals } from './recurring-refusals';

/**
 * Makes the child of the next run date now, at most one period ahead of the schedule; the scheduler
 * then moves on. The partners and catalog services are asked first, with no transaction open (the
 * partner must still exist, the lines' products too), so no row lock is held while they answer.
 */
export const generateChildHandler = handler(invoicing.generateChildInvoice, {
  gather: async (req, ctx) => {
    const unlocked = await findInvoice(ctx.db, ctx.orgId, req.id);
    if (unlocked.recurring_enabled) {
      await requireLivePartner(ctx, unlocked.partner_id);
      await checkChildLines(ctx, (await linesOf(ctx.db, [unlocked.id])).get(unlocked.id) ?? []);
    }
  },
  apply: async (req, ctx) => {
    const contract = await lockContract(ctx.db, ctx.orgId, req.id);
    if (contract.recurring_status !== 'active' || !contract.recurring_next_run_date)
      throw recurringRefusals.childOfInactiveContract(contract.invoicenumber, contract.recurring_status);
    const today = (await readSettings(ctx.db, ctx.orgId)).today();
    assertNotTooEarly(contract, today);
    const { parent, child } = await makeNextChild(ctx.db, contract, today);
    return { ...contractReply(`Child invoice ${child.invoicenumber} generated successfully`, parent), child };
  },
});

function assertNotTooEarly(contract: InvoiceRow, todayDate: string): void {
  const from = generateTooEarly(
    contract.recurring_start_date as string,
    contract.recurring_frequency!,
    contract.recurring_next_index,
    todayDate,
  );
  if (from === null) return;
  throw recurringRefusals.childTooEarly(contract.invoicenumber, contract.recurring_next_run_date, from);
}
