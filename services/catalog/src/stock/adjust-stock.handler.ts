import { catalog } from '@bo/contracts';
import { handler, recordEvent, statementEvent, unlessRefused } from '@bo/runtime';
import { loadAdjustment, lockAndLoadAdjustment, storeAdjustment, storeAdjustmentAlone } from './adjustment.repository';
import { adjustedEvent, adjustmentReply, decideAdjustment, requestedLocationIds } from './decide-adjustment';

/**
 * Load → decide → store, optimistic as a rule: the product's stock read with no lock (one
 * statement), the adjustment decided on it, and stored as one statement (`alone`) that writes only
 * while the product's versions are still those read. When they moved (a move of its stock
 * committed meanwhile), or the request is to be refused, the usual way decides under the product's
 * lock (`apply`): the lock and the read as one write, the move with the event and the recorded
 * reply in the statement that commits.
 */
export const adjustStockHandler = handler(catalog.adjustStock, {
  alone: async (req, ctx) => {
    const state = await loadAdjustment(ctx.db, ctx.orgId, req.product_id, requestedLocationIds(req));
    const plan = unlessRefused(() => decideAdjustment(state, req, { orgId: ctx.orgId, productId: req.product_id, userId: ctx.userId }));
    if (!plan || !state.versions) return undefined;
    return {
      ...storeAdjustmentAlone(plan, state.versions),
      events: [statementEvent(catalog.stockAdjusted, ctx.orgId, adjustedEvent(plan))],
      reply: adjustmentReply(plan),
    };
  },
  apply: async (req, ctx) => {
    return ctx.db.transaction(async (trx) => {
      const state = await lockAndLoadAdjustment(trx, ctx.orgId, req.product_id, requestedLocationIds(req));
      const plan = decideAdjustment(state, req, { orgId: ctx.orgId, productId: req.product_id, userId: ctx.userId });
      await storeAdjustment(trx, plan);
      await recordEvent(trx, catalog.stockAdjusted, ctx.orgId, adjustedEvent(plan));
      return adjustmentReply(plan);
    });
  },
});
