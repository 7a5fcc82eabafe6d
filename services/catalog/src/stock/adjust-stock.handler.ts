import { catalog } from '@bo/contracts';
import { handler, recordEvent } from '@bo/runtime';
import { lockAndLoadAdjustment, storeAdjustment } from './adjustment.repository';
import { adjustedEvent, adjustmentReply, decideAdjustment, requestedLocationIds } from './decide-adjustment';

/**
 * Load (under the product's lock, the move's id drawn) → decide → store: one write for the lock and
 * the read, and the move with the event and the recorded reply in the statement that commits.
 */
export const adjustStockHandler = handler(catalog.adjustStock, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    const state = await lockAndLoadAdjustment(trx, ctx.orgId, req.product_id, requestedLocationIds(req));
    const plan = decideAdjustment(state, req, { orgId: ctx.orgId, productId: req.product_id, userId: ctx.userId });
    await storeAdjustment(trx, plan);
    await recordEvent(trx, catalog.stockAdjusted, ctx.orgId, adjustedEvent(plan));
    return adjustmentReply(plan);
  });
});
