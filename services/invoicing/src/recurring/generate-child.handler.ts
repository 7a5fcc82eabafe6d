import { invoicing } from '@bo/contracts';
import { handler, invalidState, organizationToday, requireLivePartner } from '@bo/runtime';
import { generateTooEarly } from '../domain/recurrence';
import type { InvoiceRow } from '../invoice/invoice.record';
import { findInvoice, linesOf } from '../invoice/invoice.repository';
import { childLineCheck } from './child-lines';
import { contractReply, lockContract, makeNextChild } from './contract';

/**
 * Makes the child of the next run date now, at most one period ahead of the schedule; the scheduler
 * then moves on. Opens its own transaction after asking the partners and catalog services (the
 * partner must still exist, the lines' products too), so no row lock is held while they answer.
 */
export const generateChildHandler = handler(
  invoicing.generateChildInvoice,
  async (req, ctx) => {
    const unlocked = await findInvoice(ctx.db, ctx.orgId, req.id);
    if (unlocked.recurring_enabled) {
      await requireLivePartner(ctx, unlocked.partner_id);
      await childLineCheck(ctx)(ctx.orgId, (await linesOf(ctx.db, [unlocked.id])).get(unlocked.id) ?? [], ctx);
    }
    return ctx.db.transaction(async (trx) => {
      const contract = await lockContract(trx, ctx.orgId, req.id);
      if (contract.recurring_status !== 'active' || !contract.recurring_next_run_date) {
        throw invalidState(
          `Recurring contract ${contract.invoicenumber} is ${contract.recurring_status}; only an active contract makes child invoices`,
        );
      }
      const today = await organizationToday(trx, ctx.orgId);
      assertNotTooEarly(contract, today);
      const { parent, child } = await makeNextChild(trx, contract, today);
      const reply = { ...contractReply(`Child invoice ${child.invoicenumber} generated successfully`, parent), child };
      await ctx.finish(trx, reply);
      return reply;
    });
  },
  { transactions: 'own' },
);

function assertNotTooEarly(contract: InvoiceRow, todayDate: string): void {
  const from = generateTooEarly(
    contract.recurring_start_date as string,
    contract.recurring_frequency!,
    contract.recurring_next_index,
    todayDate,
  );
  if (from === null) return;
  throw invalidState(
    `Recurring contract ${contract.invoicenumber}: the next child (from ${contract.recurring_next_run_date}) may be generated from ${from} on; ` +
      'a child invoice can be generated at most one period ahead of the schedule',
  );
}
