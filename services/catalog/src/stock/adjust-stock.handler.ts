import { catalog } from '@bo/contracts';
import { toNumber } from '@bo/kernel';
import { handler, invalidState } from '@bo/runtime';
import { findLocation } from '../location/location.repository';
import { carriesStock } from '../product/product-rules';
import { findLiveProduct } from '../product/product.repository';
import { recordStockAdjusted, recordStockMove } from './stock.ledger';

export const adjustStockHandler = handler(catalog.adjustStock, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    // The product lock comes first: every stock change of this product waits here, so the
    // previous quantities read below are the ones the move replaces.
    const product = await findLiveProduct(trx, ctx.orgId, req.product_id, { lock: true });
    if (!carriesStock(product.type))
      throw invalidState(`Product ${product.id} is a ${product.type} product; only inventory products carry stock`);
    const targets = [];
    for (const [locationId, quantity] of Object.entries(req.qty_locations)) {
      targets.push({ location: await findLocation(trx, ctx.orgId, locationId), quantity });
    }
    const move = await recordStockMove(trx, {
      orgId: ctx.orgId,
      product,
      source: 'adjustment',
      adjustmentType: req.adjustment_type?.trim() || 'adjustment',
      reference: req.reference || null,
      notes: req.notes || null,
      userId: ctx.userId ?? req.userid,
      targets,
    });
    await recordStockAdjusted(trx, ctx.orgId, move);
    return {
      message: 'Stock adjusted successfully',
      stock_move_id: move.moveId,
      details: move.lines.map((l) => ({
        location_id: String(l.locationId),
        previous_stock: toNumber(l.previous),
        new_stock: toNumber(l.next),
        change: toNumber(l.change),
      })),
    };
  });
});
