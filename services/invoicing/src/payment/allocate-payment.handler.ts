import { invoicing } from '@bo/contracts';
import { currentTime } from '@bo/kernel';
import { handler, recordEvent, statementEvent, unlessRefused } from '@bo/runtime';
import { loadAllocation, readAllocation, storeAllocation, storeAllocationAlone } from './allocation.repository';
import { decideAllocation } from './decide-allocation';

/**
 * Allocates a payment's or a validated credit note's unallocated amount to open documents of the
 * same partner and direction (decideAllocation): the whole request is judged and booked, or refused
 * all together.
 *
 * Load → decide → store, optimistic as a rule: the settings, the payment with its allocations and
 * refunds, the documents named (the credit note among them) and the ids drawn read with no lock (one
 * statement), the allocation decided on them, and stored as one statement (`alone`) that holds the
 * settings and writes the payment and each document only while they are as read. When one moved
 * meanwhile, or the request is to be refused, the usual way decides under the locks (`apply`: the
 * payment first, then every document in id order).
 */
export const allocatePaymentHandler = handler(invoicing.allocatePayment, {
  alone: async (req, ctx) => {
    const { state, read } = await readAllocation(ctx.db, ctx.orgId, req);
    const plan = unlessRefused(() => decideAllocation(state, req, allocator(ctx)));
    if (!plan) return undefined;
    return {
      ...storeAllocationAlone(plan, read),
      events: [statementEvent(invoicing.paymentAllocated, ctx.orgId, plan.event)],
      reply: plan.reply,
    };
  },
  apply: async (req, ctx) => {
    const state = await loadAllocation(ctx.db, ctx.orgId, req);
    const plan = decideAllocation(state, req, allocator(ctx));
    await storeAllocation(ctx.db, plan, 'with commit');
    await recordEvent(ctx.db, invoicing.paymentAllocated, ctx.orgId, plan.event);
    return plan.reply;
  },
});

function allocator(ctx: { orgId: number; operationKey?: string }) {
  return { orgId: ctx.orgId, instant: currentTime(), operationKey: ctx.operationKey ?? null };
}
