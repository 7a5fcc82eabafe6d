import { catalog, type ReplyOf, type RequestOf } from '@bo/contracts';
import { formatDateTime, sum, toNumber } from '@bo/kernel';
import { handler, pageWindow, paginationOf, type Knex } from '@bo/runtime';
import { findLiveProduct } from '../product/product.repository';
import { countMoves, linesOfMoves, pageOfMoves } from './stock.repository';

export const stockMovesHandler = handler(catalog.stockMoves, async (req, ctx) =>
  // One snapshot: the page, its lines and the total count describe the same history.
  ctx.db.transaction((trx) => readMoves(trx, ctx.orgId, req), { isolationLevel: 'repeatable read', readOnly: true }),
);

async function readMoves(trx: Knex.Transaction, orgId: number, req: RequestOf<typeof catalog.stockMoves>) {
  const product = await findLiveProduct(trx, orgId, req.product_id);
  const { size, offset } = pageWindow(req);
  const stockMoves = await loadMoves(trx, orgId, product.id, size, offset);
  const total = await countMoves(trx, orgId, product.id);
  return {
    message: stockMoves.length ? 'Stock moves retrieved successfully' : 'No stock moves found',
    product_id: product.id,
    stock_moves: stockMoves,
    pagination: paginationOf(req, total),
  };
}

type MoveRecord = ReplyOf<typeof catalog.stockMoves>['stock_moves'][number];

/** A product's moves, newest first, with their lines and source document; stock details shows the latest ones too. */
export async function loadMoves(trx: Knex, orgId: number, productId: number, size: number, offset = 0): Promise<MoveRecord[]> {
  const rows = await pageOfMoves(trx, orgId, productId, size, offset);
  const lines = await linesOfMoves(
    trx,
    orgId,
    rows.map((r) => r.id),
  );
  return rows.map((m) => {
    const own = lines.filter((l) => Number(l.move_id) === Number(m.id));
    return {
      id: String(m.id),
      product_id: m.product_id,
      source: m.source,
      adjustment_type: m.adjustment_type,
      reference: m.reference,
      notes: m.notes,
      created_by: m.created_by,
      created_at: formatDateTime(m.created_at) as string,
      document: m.document_type === null ? null : { type: m.document_type, id: Number(m.document_id), number: m.document_number ?? '' },
      total_change: toNumber(sum(own.map((l) => l.change))),
      lines: own.map((l) => ({
        location_id: String(l.location_id),
        location_name: l.location_name,
        warehouse_id: String(l.warehouse_id),
        warehouse_name: l.warehouse_name,
        previous_stock: toNumber(l.previous_stock),
        new_stock: toNumber(l.new_stock),
        change: toNumber(l.change),
      })),
    };
  });
}
