import { storeWithCommit, type Knex } from '@bo/runtime';
import type { AdjustmentState, StockAdjustmentPlan } from './decide-adjustment';

/**
 * Locks the product, then reads everything a stock adjustment decides on, as two statements that
 * leave in one write (node-postgres pipelines them, after the transaction's BEGIN): the lock first,
 * so the read's snapshot, taken once the lock is held, has every earlier move of the product in it.
 * One statement could not do both: its snapshot would be taken before it waited for the lock. The
 * move's id is drawn here, so the decision can name it in the event and the reply before it is written.
 */
export async function lockAndLoadAdjustment(
  trx: Knex.Transaction,
  orgId: number,
  productId: number,
  locationIds: readonly number[],
): Promise<AdjustmentState> {
  const lock = trx.raw('select 1 from products where org_id = ? and id = ? and deleted_at is null for update', [orgId, productId]);
  const load = trx.raw(
    `select p.id, p.type, p.sku, nextval(pg_get_serial_sequence('stock_moves', 'id')) as move_id, now() as now,
            (select coalesce(sum(q.quantity), 0) from stock_quantities q where q.product_id = p.id)::text as total,
            (select coalesce(jsonb_agg(jsonb_build_object('location_id', l.id, 'warehouse_id', l.warehouse_id, 'quantity', coalesce(q.quantity, 0)::text)), '[]')
               from locations l
               join warehouses w on w.id = l.warehouse_id and w.org_id = l.org_id
               left join stock_quantities q on q.product_id = p.id and q.location_id = l.id
              where l.org_id = p.org_id and l.id = any(?::int[])) as locations
       from products p where p.org_id = ? and p.id = ? and p.deleted_at is null`,
    [[...locationIds], orgId, productId],
  );
  // The lock's failure is the one to answer (a twin holding the operation key fails the statements
  // that went out with BEGIN): the read behind it fails only because the transaction is aborted.
  const [locked, loaded] = await Promise.allSettled([lock, load]);
  if (locked.status === 'rejected') throw locked.reason;
  if (loaded.status === 'rejected') throw loaded.reason;
  const row = (loaded.value as { rows: LoadedRow[] }).rows[0];
  if (!row) return { product: null, locations: [], total: '0', moveId: 0, now: new Date(0) };
  return {
    product: { id: row.id, type: row.type, sku: row.sku },
    moveId: row.move_id,
    now: row.now,
    total: row.total,
    locations: row.locations.map((l) => ({ locationId: l.location_id, warehouseId: l.warehouse_id, quantity: l.quantity })),
  };
}

interface LoadedRow {
  id: number;
  type: string;
  sku: string | null;
  move_id: number;
  now: Date;
  total: string;
  locations: Array<{ location_id: number; warehouse_id: number; quantity: string }>;
}

/**
 * Writes the plan's move (under the id its load drew), its lines and the new quantities with the
 * statement that commits the transaction, beside the event's outbox row and the recorded reply
 * (storeWithCommit): three writes that read nothing of each other.
 */
export async function storeAdjustment(trx: Knex.Transaction, plan: StockAdjustmentPlan): Promise<void> {
  const m = plan.move;
  const lines = JSON.stringify(
    plan.lines.map((l) => ({
      location_id: l.locationId,
      previous_stock: l.previous.toFixed(),
      new_stock: l.next.toFixed(),
      change: l.change.toFixed(),
    })),
  );
  const recordset = `jsonb_to_recordset(?::jsonb) as l(location_id int, previous_stock numeric, new_stock numeric, change numeric)`;
  await storeWithCommit(trx, [
    {
      sql: `insert into stock_moves (id, org_id, product_id, source, adjustment_type, reference, notes, created_by)
            values (?, ?, ?, 'adjustment', ?, ?, ?, ?)`,
      bindings: [m.id, m.orgId, m.productId, m.adjustmentType, m.reference, m.notes, m.userId],
    },
    {
      sql: `insert into stock_move_lines (move_id, org_id, product_id, location_id, previous_stock, new_stock, change)
            select ?, ?, ?, l.location_id, l.previous_stock, l.new_stock, l.change from ${recordset}`,
      bindings: [m.id, m.orgId, m.productId, lines],
    },
    {
      sql: `insert into stock_quantities (org_id, product_id, location_id, quantity)
            select ?, ?, l.location_id, l.new_stock from ${recordset}
            on conflict (product_id, location_id) do update set quantity = excluded.quantity, updated_at = now()`,
      bindings: [m.orgId, m.productId, lines],
    },
  ]);
}
