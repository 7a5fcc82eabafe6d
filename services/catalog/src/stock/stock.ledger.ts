import { catalog } from '@bo/contracts';
import { formatDateTime, toNumber } from '@bo/kernel';
import { recordEvent, type Knex } from '@bo/runtime';
import type { LocationJoinRow } from '../location/location.repository';
import type { ProductRow } from '../product/product.record';
import { totalStock } from '../product/product.repository';
import { computeAdjustment, type AdjustmentLine } from './adjustment';

export interface StockMoveInput {
  orgId: number;
  /** Must be locked for update by the caller's transaction. */
  product: ProductRow;
  source: (typeof catalog.stockMoveSources)[number];
  adjustmentType: string;
  reference?: string | null;
  notes?: string | null;
  userId?: string | null;
  /** The validated document a `document` move follows. */
  document?: StockDocument | null;
  targets: ReadonlyArray<{ location: LocationJoinRow; quantity: string }>;
}

export type StockDocument = NonNullable<catalog.StockAdjustedData['document']>;

export interface RecordedMove {
  moveId: string;
  lines: AdjustmentLine[];
  /** The `catalog.stock.adjusted` data, for `recordStockAdjusted`. */
  event: catalog.StockAdjustedData;
}

/**
 * Sets target quantities at locations as one append-only stock move: the move, a line per location
 * and the new quantities, in the caller's transaction. The product row lock held by the caller is
 * what makes read-then-write of the quantities safe. The caller then records the move's event with
 * `recordStockAdjusted` in the same transaction, after its own product event, so a consumer learns
 * of a product before any move of it.
 */
export async function recordStockMove(trx: Knex.Transaction, input: StockMoveInput): Promise<RecordedMove> {
  const { orgId, product } = input;
  const locationIds = input.targets.map((t) => t.location.location_id);
  const currentRows = await trx('stock_quantities')
    .where({ product_id: product.id })
    .whereIn('location_id', locationIds)
    .select<Array<{ location_id: number; quantity: string }>>('location_id', 'quantity');
  const current = new Map(currentRows.map((r) => [Number(r.location_id), r.quantity]));
  const lines = computeAdjustment(
    current,
    input.targets.map((t) => [t.location.location_id, t.quantity]),
  );

  const [inserted] = await trx('stock_moves')
    .insert({
      org_id: orgId,
      product_id: product.id,
      source: input.source,
      adjustment_type: input.adjustmentType,
      reference: input.reference ?? null,
      notes: input.notes ?? null,
      created_by: input.userId ?? null,
      document_type: input.document?.type ?? null,
      document_id: input.document?.id ?? null,
      document_number: input.document?.number ?? null,
    })
    .returning<Array<{ id: number; created_at: Date }>>(['id', 'created_at']);
  // One row inserted, so exactly one returned.
  const move = inserted as { id: number; created_at: Date };
  await trx('stock_move_lines').insert(
    lines.map((l) => ({
      move_id: move.id,
      org_id: orgId,
      product_id: product.id,
      location_id: l.locationId,
      previous_stock: l.previous.toFixed(),
      new_stock: l.next.toFixed(),
      change: l.change.toFixed(),
    })),
  );
  await trx('stock_quantities')
    .insert(lines.map((l) => ({ org_id: orgId, product_id: product.id, location_id: l.locationId, quantity: l.next.toFixed() })))
    .onConflict(['product_id', 'location_id'])
    .merge({ quantity: trx.raw('excluded.quantity'), updated_at: trx.fn.now() });

  const warehouseOf = new Map(input.targets.map((t) => [t.location.location_id, t.location.warehouse_id]));
  const moveId = String(move.id);
  const data: catalog.StockAdjustedData = {
    stock_move_id: moveId,
    product_id: product.id,
    sku: product.sku,
    source: input.source,
    adjustment_type: input.adjustmentType,
    reference: input.reference ?? null,
    notes: input.notes ?? null,
    document: input.document ?? null,
    lines: lines.map((l) => ({
      location_id: String(l.locationId),
      warehouse_id: String(warehouseOf.get(l.locationId)),
      previous_stock: toNumber(l.previous),
      new_stock: toNumber(l.next),
      change: toNumber(l.change),
    })),
    stock: toNumber(await totalStock(trx, product.id)),
    created_at: formatDateTime(move.created_at) as string,
  };
  return { moveId, lines, event: data };
}

/** The outbox entry of a recorded move; see `recordStockMove`. */
export async function recordStockAdjusted(trx: Knex.Transaction, orgId: number, move: RecordedMove): Promise<void> {
  await recordEvent(trx, catalog.stockAdjusted, orgId, move.event);
}
