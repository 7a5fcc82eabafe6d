import { catalog } from '@bo/contracts';
import { dec, formatDateTime, sum, toNumber } from '@bo/kernel';
import { handler } from '@bo/runtime';
import { findLiveProduct } from '../product/product.repository';
import { loadMoves } from './stock-moves.handler';

/** Moves stock details shows beside the quantities; the full history is `stock_moves`. */
const RECENT_MOVES = 10;

interface QuantityRow {
  warehouse_id: number;
  warehouse_name: string;
  location_id: number;
  location_name: string;
  quantity: string;
}

export const stockDetailsHandler = handler(catalog.stockDetails, async (req, ctx) => {
  // Every read in one snapshot so the product, the total, the rows and the last move agree.
  return ctx.db.transaction(
    async (trx) => {
      const product = await findLiveProduct(trx, ctx.orgId, req.product_id);
      const rows: QuantityRow[] = await trx('stock_quantities as q')
        .join('locations as l', (j) => j.on('l.id', 'q.location_id').andOn('l.org_id', 'q.org_id'))
        .join('warehouses as w', (j) => j.on('w.id', 'l.warehouse_id').andOn('w.org_id', 'l.org_id'))
        .where({ 'q.org_id': ctx.orgId, 'q.product_id': product.id })
        .select<QuantityRow[]>(
          'w.id as warehouse_id',
          'w.name as warehouse_name',
          'l.id as location_id',
          'l.name as location_name',
          'q.quantity',
        )
        .orderBy([{ column: 'w.id' }, { column: 'l.id' }]);
      const last = await trx('stock_moves')
        .where({ org_id: ctx.orgId, product_id: product.id })
        .max<{ at: Date | null }[]>({ at: 'created_at' });
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
        last_stock_check: formatDateTime(last[0]?.at ?? null),
        recent_moves: await loadMoves(trx, ctx.orgId, product.id, RECENT_MOVES),
      };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
});
