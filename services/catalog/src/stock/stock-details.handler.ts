import { catalog } from '@bo/contracts';
import { dec, formatDateTime, sum, toNumber } from '@bo/kernel';
import { handler } from '@bo/runtime';
import { findLiveProduct } from '../product/product.repository';
import { loadMoves } from './stock-moves.handler';
import { lastMoveAt, quantitiesByLocation } from './stock.repository';

/** Moves stock details shows beside the quantities; the full history is `stock_moves`. */
const RECENT_MOVES = 10;

export const stockDetailsHandler = handler(catalog.stockDetails, async (req, ctx) => {
  // Every read in one snapshot so the product, the total, the rows and the last move agree.
  return ctx.db.transaction(
    async (trx) => {
      const product = await findLiveProduct(trx, ctx.orgId, req.product_id);
      const rows = await quantitiesByLocation(trx, ctx.orgId, product.id);
      const last = await lastMoveAt(trx, ctx.orgId, product.id);
      const all = rows.map((r) => r.quantity);
      return {
        message: 'Stock details retrieved successfully',
        product_id: product.id,
        product_name: product.name,
        current_stock: toNumber(sum(all)),
        // One row per location holding the product (or owing it: below zero after documents); a
        // location counted down to zero holds nothing.
        stock_details: rows
          .filter((r) => !dec(r.quantity).isZero())
          .map((r) => ({
            warehouse_id: String(r.warehouse_id),
            warehouse_name: r.warehouse_name,
            location_id: String(r.location_id),
            location_name: r.location_name,
            stock_quantity: toNumber(r.quantity),
            negative: dec(r.quantity).isNegative(),
          })),
        min_stock_level: product.min_stock_level === null ? null : toNumber(product.min_stock_level),
        max_stock_level: product.max_stock_level === null ? null : toNumber(product.max_stock_level),
        last_stock_check: formatDateTime(last),
        recent_moves: await loadMoves(trx, ctx.orgId, product.id, RECENT_MOVES),
      };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
});
