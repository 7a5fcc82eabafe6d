import type { catalog } from '@bo/contracts';
import type { Knex } from '@bo/runtime';

/** A `stock_moves` row as the table stores it. */
export interface MoveRow {
  id: number;
  product_id: number;
  source: (typeof catalog.stockMoveSources)[number];
  adjustment_type: string;
  reference: string | null;
  notes: string | null;
  created_by: string | null;
  created_at: Date;
  document_type: string | null;
  document_id: number | null;
  document_number: string | null;
}

/** A line of a move, with the location and warehouse it changed. */
export interface MoveLineRow {
  move_id: number;
  location_id: number;
  location_name: string;
  warehouse_id: number;
  warehouse_name: string;
  previous_stock: string;
  new_stock: string;
  change: string;
}

/** What a product holds at one location, with the location's warehouse. */
export interface QuantityRow {
  warehouse_id: number;
  warehouse_name: string;
  location_id: number;
  location_name: string;
  quantity: string;
}

/** A product's quantity at every location that has one, by warehouse then location. */
export async function quantitiesByLocation(db: Knex, orgId: number, productId: number): Promise<QuantityRow[]> {
  return db('stock_quantities as q')
    .join('locations as l', (j) => j.on('l.id', 'q.location_id').andOn('l.org_id', 'q.org_id'))
    .join('warehouses as w', (j) => j.on('w.id', 'l.warehouse_id').andOn('w.org_id', 'l.org_id'))
    .where({ 'q.org_id': orgId, 'q.product_id': productId })
    .select<QuantityRow[]>(
      'w.id as warehouse_id',
      'w.name as warehouse_name',
      'l.id as location_id',
      'l.name as location_name',
      'q.quantity',
    )
    .orderBy([{ column: 'w.id' }, { column: 'l.id' }]);
}

/** When a product's stock last moved (null if never). */
export async function lastMoveAt(db: Knex, orgId: number, productId: number): Promise<Date | null> {
  const last = await db('stock_moves').where({ org_id: orgId, product_id: productId }).max<{ at: Date | null }[]>({ at: 'created_at' });
  return last[0]?.at ?? null;
}

/** One page of a product's moves, newest first. */
export async function pageOfMoves(db: Knex, orgId: number, productId: number, size: number, offset: number): Promise<MoveRow[]> {
  return db('stock_moves')
    .where({ org_id: orgId, product_id: productId })
    .select<MoveRow[]>('*')
    .orderBy('id', 'desc')
    .limit(size)
    .offset(offset);
}

/** The lines of the moves, in the order written (no moves, no query). */
export async function linesOfMoves(db: Knex, orgId: number, moveIds: number[]): Promise<MoveLineRow[]> {
  if (!moveIds.length) return [];
  return db('stock_move_lines as m')
    .join('locations as l', (j) => j.on('l.id', 'm.location_id').andOn('l.org_id', 'm.org_id'))
    .join('warehouses as w', (j) => j.on('w.id', 'l.warehouse_id').andOn('w.org_id', 'l.org_id'))
    .where('m.org_id', orgId)
    .whereIn('m.move_id', moveIds)
    .select<MoveLineRow[]>(
      'm.move_id',
      'm.location_id',
      'l.name as location_name',
      'w.id as warehouse_id',
      'w.name as warehouse_name',
      'm.previous_stock',
      'm.new_stock',
      'm.change',
    )
    .orderBy('m.id');
}

/** How many moves a product has. */
export async function countMoves(db: Knex, orgId: number, productId: number): Promise<number> {
  const counted = await db('stock_moves').where({ org_id: orgId, product_id: productId }).count<{ count: number }[]>({ count: '*' });
  return Number(counted[0]?.count ?? 0);
}
