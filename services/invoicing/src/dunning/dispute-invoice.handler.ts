import { invoicing } from '@bo/contracts';
import { handler, unlessRefused } from '@bo/runtime';
import { decideDispute, disputeReply } from './decide-dispute';
import { disputeAlone, readDisputeTarget, storeDispute } from './dunning.repository';

/**
 * Marks a customer invoice disputed, or clears the mark: while it is set no reminder run sends the
 * invoice a letter (skipped as `disputed`), and the invoice is otherwise unchanged (it stays due,
 * payable and in the aged balances). Setting it twice keeps the first time it was set.
 *
 * Load → decide (decideDispute) → store, optimistic as a rule: the invoice read with no lock, and the
 * mark as one statement, only while the invoice is the row read, the time a new mark is set filled
 * in from it (`alone`). An invoice changed meanwhile, or a refusal, is judged again under the
 * invoice's lock (`apply`), where a refusal is recorded.
 */
export const dunningDisputeHandler = handler(invoicing.dunningDispute, {
  alone: async (req, ctx) => {
    const loaded = await readDisputeTarget(ctx.db, ctx.orgId, req.invoice_id);
    const dispute = unlessRefused(() => decideDispute(loaded?.invoice, req));
    if (!loaded || !dispute) return undefined;
    return { ...disputeAlone(ctx.orgId, dispute, loaded.read), events: [], reply: disputeReply(dispute) };
  },
  apply: async (req, ctx) => {
    const loaded = await readDisputeTarget(ctx.db, ctx.orgId, req.invoice_id, { lock: true });
    const dispute = decideDispute(loaded?.invoice, req);
    return disputeReply(dispute, await storeDispute(ctx.db, ctx.orgId, dispute));
  },
});
