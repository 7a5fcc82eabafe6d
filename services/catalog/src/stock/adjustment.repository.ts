import { storeWithCommit, type Knex, type StorePart } from '@bo/runtime';
import type { AdjustmentState, StockAdjustmentPlan } from './decide-adjustment';

/**
 * What a stock adjustment decides on, for the product and the locations named: the product, its
 * quantity at each named location of the organization, its stock over all locations, its versions
 * (the record's and its stock's), the move's id drawn, and the time. `product` names the products
 * row the statement reads (`p`), which the caller may have locked or bumped before.
 */
function adjustmentLoad(orgId: number, productId: number, locationIds: readonly number[]): { sql: string; bindings: Knex.RawBinding[] } {
  return {
    sql: `select p.id, p.type, p.sku, p.version, p.stock_version::text as stock_version,
                 nextval(pg_get_serial_sequence('stock_moves', 'id')) as move_id, now() as now,
                 (select coalesce(sum(q.quantity), 0) from stock_quantities q where q.product_id = p.id)::text as total,
                 (select coalesce(jsonb_agg(jsonb_build_object('location_id', l.id, 'warehouse_id', l.warehouse_id, 'quantity', coalesce(q.quantity, 0)::text)), '[]')
                    from locations l
                    join warehouses w on w.id = l.warehouse_id and w.org_id = l.org_id
                    left join stock_quantities q on q.product_id = p.id and q.location_id = l.id
                   where l.org_id = p.org_id and l.id = any(?::int[])) as locations
            from products p where p.org_id = ? and p.id = ? and p.deleted_at is null`,
    bindings: [[...locationIds], orgId, productId],
  };
}

/**
 * Locks the product, then reads everything a stock adjustment decides on, as two statements that leave in one write (node-postgres pipelines them, after the
 * transaction's BEGIN): the lock first, so the read's snapshot, taken once the lock is held, has
 * every earlier move of the product in it. One statement could not do both: its snapshot would be
 * taken before it waited for the lock. The move's id is drawn here, so the decision can name it in
 * the event and the reply before it is written.
 */
export async function lockAndLoadAdjustment(
  trx: Knex.Transaction,
  orgId: number,
  productId: number,
  locationIds: readonly number[],
): Promise<AdjustmentState> {
  const lock = trx.raw('select 1 from products where org_id = ? and id = ? and deleted_at is null for update', [orgId, productId]);
  const read = adjustmentLoad(orgId, productId, locationIds);
  const load = trx.raw(read.sql, read.bindings);
  // The lock's failure is the one to answer (a twin holding the operation key fails the statements
  // that went out with BEGIN): the read behind it fails only because the transaction is aborted.
  const [locked, loaded] = await Promise.allSettled([lock, load]);
  if (locked.status === 'rejected') throw locked.reason;
  if (loaded.status === 'rejected') throw loaded.reason;
  return stateOf((loaded.value as { rows: LoadedRow[] }).rows[0]);
}

/**
 * Reads what a stock adjustment decides on with no lock and no transaction: for the optimistic
 * write (storeAdjustmentAlone), which stores only if the product's versions are still these.
 */
export async function loadAdjustment(db: Knex, orgId: number, productId: number, locationIds: readonly number[]): Promise<AdjustmentState> {
  const read = adjustmentLoad(orgId, productId, locationIds);
  const { rows } = await db.raw<{ rows: LoadedRow[] }>(read.sql, read.bindings);
  return stateOf(rows[0]);
}

function stateOf(row: LoadedRow | undefined): AdjustmentState {
  if (!row) return { product: null, locations: [], total: '0', moveId: 0, now: new Date(0), versions: null };
  return {
    product: { id: row.id, type: row.type, sku: row.sku },
    moveId: row.move_id,
    now: row.now,
    total: row.total,
    locations: row.locations.map((l) => ({ locationId: l.location_id, warehouseId: l.warehouse_id, quantity: l.quantity })),
    versions: { record: row.version, stock: row.stock_version },
  };
}

interface LoadedRow {
  id: number;
  type: string;
  sku: string | null;
  version: number;
  stock_version: string;
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
  await storeWithCommit(trx, moveParts(plan, null));
}

/**
 * The optimistic store of an adjustment decided on an unlocked read (loadAdjustment), as the parts
 * of one statement with no transaction of its own (one-statement.ts): the product's stock version
 * bumped only while the product and its stock are still at the versions read (`store1`; under its
 * row lock, and every stock move bumps the version by a trigger (migration 008), so a move
 * committing meanwhile makes it update nothing), then the move, its lines and the quantities, each
 * written only once that bump was. `expects` holds when it was: otherwise
 * nothing of the statement stays and the runtime runs the adjustment under the product's lock.
 */
export function storeAdjustmentAlone(
  plan: StockAdjustmentPlan,
  versions: NonNullable<AdjustmentState['versions']>,
): { parts: StorePart[]; expects: string } {
  const m = plan.move;
  return {
    parts: [
      {
        sql: `update products set stock_version = stock_version + 1
               where org_id = ? and id = ? and deleted_at is null and version = ? and stock_version = ?::bigint
              returning id`,
        bindings: [m.orgId, m.productId, versions.record, versions.stock],
      },
      ...moveParts(plan, 'store1'),
    ],
    expects: '(select count(*) from store1) = 1',
  };
}

/**
 * The move, its lines and the product's new quantities, as parts of one statement; with `after`,
 * each is written only once the CTE of that name answered its row (and after it).
 */
function moveParts(plan: StockAdjustmentPlan, after: string | null): StorePart[] {
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
  const once = after ? ` from ${after}` : '';
  const alsoOnce = after ? `, ${after}` : '';
  return [
    {
      sql: `insert into stock_moves (id, org_id, product_id, source, adjustment_type, reference, notes, created_by, created_at)
            select ?::bigint, ?::int, ?::int, 'adjustment', ?, ?, ?, ?, ?::timestamptz${once}`,
      bindings: [m.id, m.orgId, m.productId, m.adjustmentType, m.reference, m.notes, m.userId, m.createdAt],
    },
    {
      sql: `insert into stock_move_lines (move_id, org_id, product_id, location_id, previous_stock, new_stock, change)
            select ?::bigint, ?::int, ?::int, l.location_id, l.previous_stock, l.new_stock, l.change from ${recordset}${alsoOnce}`,
      bindings: [m.id, m.orgId, m.productId, lines],
    },
    {
      sql: `insert into stock_quantities (org_id, product_id, location_id, quantity)
            select ?::int, ?::int, l.location_id, l.new_stock from ${recordset}${alsoOnce}
            on conflict (product_id, location_id) do update set quantity = excluded.quantity, updated_at = now()`,
      bindings: [m.orgId, m.productId, lines],
    },
  ];
}
