import type { catalog } from '@bo/contracts';
import { formatDateTimeSql } from '@bo/kernel';
import { type Knex, type OneStatementWrite } from '@bo/runtime';
import { parseStringId } from '../ids';
import { MAIN_LOCATION_NAME, type NewLocation, type NewWarehouse } from './decide-location';
import { locationRefusals } from './location-refusals';

export const DEFAULT_WAREHOUSE_NAME = 'Main Warehouse';
export const DEFAULT_LOCATION_NAME = 'Stock';

export interface LocationJoinRow {
  location_id: number;
  location_name: string;
  is_default: boolean;
  warehouse_id: number;
  warehouse_name: string;
}

/** A `locations` row as the table stores it. */
export interface LocationRecordRow {
  id: number;
  org_id: number;
  warehouse_id: number;
  name: string;
  is_default: boolean;
}

export function toLocationRow(row: LocationJoinRow): catalog.LocationRow {
  return {
    warehouse_id: String(row.warehouse_id),
    warehouse_name: row.warehouse_name,
    location_id: String(row.location_id),
    location_name: row.location_name,
    is_default: row.is_default,
  };
}

export function locationsQuery(db: Knex, orgId: number) {
  return db('locations as l')
    .join('warehouses as w', (j) => j.on('w.id', 'l.warehouse_id').andOn('w.org_id', 'l.org_id'))
    .where('l.org_id', orgId)
    .select('l.id as location_id', 'l.name as location_name', 'l.is_default', 'w.id as warehouse_id', 'w.name as warehouse_name');
}

/**
 * The organization's default location, made with its default warehouse on first use. Runs in its
 * own short transaction so the defaults exist (committed) before any longer write uses them. Two
 * first calls at once meet on the unique indexes (one default per org, names unique): ON CONFLICT
 * waits for the other insert and then finds its row, so there is never a second default.
 */
export async function ensureDefaultLocation(db: Knex, orgId: number): Promise<LocationJoinRow> {
  const existing = await findDefaultLocation(db, orgId);
  if (existing) return existing;
  await db.transaction(async (trx) => {
    await trx.raw(
      `insert into warehouses (org_id, name, is_default) values (?, ?, true)
       on conflict do nothing`,
      [orgId, DEFAULT_WAREHOUSE_NAME],
    );
    const warehouse = await trx('warehouses').where({ org_id: orgId, is_default: true }).first<{ id: number } | undefined>('id');
    // Found whether this call or a concurrent one inserted it (see above), so only a bug gets here.
    if (!warehouse) throw new Error(`default warehouse of organization ${orgId} could not be created`);
    await trx.raw(
      `insert into locations (org_id, warehouse_id, name, is_default) values (?, ?, ?, true)
       on conflict do nothing`,
      [orgId, warehouse.id, DEFAULT_LOCATION_NAME],
    );
  });
  const created = await findDefaultLocation(db, orgId);
  if (!created) throw new Error(`default location of organization ${orgId} could not be created`);
  return created;
}

async function findDefaultLocation(db: Knex, orgId: number): Promise<LocationJoinRow | undefined> {
  return (await locationsQuery(db, orgId).where('l.is_default', true).first()) as LocationJoinRow | undefined;
}

/** A location of the organization; another organization's location is not found. */
export async function findLocation(db: Knex, orgId: number, locationId: string): Promise<LocationJoinRow> {
  const id = parseStringId(locationId);
  const row = id === null ? undefined : ((await locationsQuery(db, orgId).where('l.id', id).first()) as LocationJoinRow | undefined);
  if (!row) throw locationRefusals.locationNotFound(locationId);
  return row;
}

export interface WarehouseRow {
  id: number;
  org_id: number;
  name: string;
  address: string | null;
  is_default: boolean;
  created_at: Date;
}

export async function findWarehouse(db: Knex, orgId: number, warehouseId: string): Promise<WarehouseRow> {
  const id = parseStringId(warehouseId);
  const row = id === null ? undefined : await db<WarehouseRow>('warehouses').where({ org_id: orgId, id }).first();
  if (!row) throw locationRefusals.warehouseNotFound(warehouseId);
  return row;
}

/** A warehouse's main location: its default one if it is the default warehouse, else its first. */
export async function mainLocationOf(db: Knex, orgId: number, warehouseId: number): Promise<LocationJoinRow> {
  const row = (await locationsQuery(db, orgId)
    .where('l.warehouse_id', warehouseId)
    .orderBy([{ column: 'l.is_default', order: 'desc' }, { column: 'l.id' }])
    .first()) as LocationJoinRow | undefined;
  if (!row) throw locationRefusals.warehouseWithoutLocation(warehouseId);
  return row;
}

/** Stores a new location in a warehouse of the organization and returns its row. */
export async function insertLocation(
  db: Knex,
  orgId: number,
  warehouseId: number,
  name: string,
  userId: string | null,
): Promise<LocationRecordRow> {
  const [row] = (await db('locations')
    .insert({ org_id: orgId, warehouse_id: warehouseId, name, created_by: userId })
    .returning('*')) as LocationRecordRow[];
  return row as LocationRecordRow;
}

/** Stores a new (non-default) warehouse of the organization and returns its row. */
export async function insertWarehouse(
  db: Knex,
  orgId: number,
  name: string,
  address: string | null,
  userId: string | null,
): Promise<WarehouseRow> {
  const [row] = (await db('warehouses').insert({ org_id: orgId, name, address, created_by: userId }).returning('*')) as WarehouseRow[];
  return row as WarehouseRow;
}

/** The organization's locations among the ids (none asked, no query). */
export async function locationsAmong(db: Knex, orgId: number, ids: number[]): Promise<LocationJoinRow[]> {
  return ids.length ? ((await locationsQuery(db, orgId).whereIn('l.id', ids)) as LocationJoinRow[]) : [];
}

/** The organization's default location is there (ensureDefaultLocation made it): SQL whose one binding is the organization's id. */
const DEFAULTS_MADE = 'exists (select 1 from locations d where d.org_id = ?::int and d.is_default)';

/**
 * A new location's insert as a one-statement write (storeAlone). It writes only in a warehouse of
 * the organization, once the organization has its default location, and under a name no location
 * of the warehouse has (the unique index): else nothing, and the usual way makes the defaults or
 * answers. Its id and its warehouse's name are filled in where the reply says `location_id` and
 * `warehouse_name`.
 */
export function locationInsertAlone(
  orgId: number,
  location: NewLocation,
  userId: string | null,
): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  return {
    parts: [
      {
        sql: `insert into locations (org_id, warehouse_id, name, created_by)
              select w.org_id, w.id, ?, ? from warehouses w where w.org_id = ? and w.id = ? and ${DEFAULTS_MADE}
              returning id, warehouse_id`,
        bindings: [location.name, userId, orgId, location.warehouseId, orgId],
      },
    ],
    expects: '(select count(*) from store1) = 1',
    fills: [
      { key: 'location_id', sql: '(select to_json(id::text)::text from store1)' },
      { key: 'warehouse_name', sql: '(select to_json(w.name)::text from warehouses w join store1 s on s.warehouse_id = w.id)' },
    ],
  };
}

/**
 * A new warehouse's insert and its main location's as a one-statement write (storeAlone). It writes
 * only once the organization has its default location, and under a name no warehouse of the
 * organization has (the unique index): else nothing, and the usual way makes the defaults or
 * answers. The warehouse's id and time and its location's id are filled in where the reply says
 * `id` and `warehouse_id`, `created_at` and `location_id`.
 */
export function warehouseInsertAlone(
  orgId: number,
  warehouse: NewWarehouse,
  userId: string | null,
): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  const warehouseId = '(select to_json(id::text)::text from store1)';
  return {
    parts: [
      {
        sql: `insert into warehouses (org_id, name, address, created_by) select ?, ?, ?, ? where ${DEFAULTS_MADE}
              returning id, created_at`,
        bindings: [orgId, warehouse.name, warehouse.address, userId, orgId],
      },
      {
        sql: 'insert into locations (org_id, warehouse_id, name, created_by) select ?, s.id, ?, ? from store1 s returning id',
        bindings: [orgId, MAIN_LOCATION_NAME, userId],
      },
    ],
    expects: '(select count(*) from store1) = 1 and (select count(*) from store2) = 1',
    fills: [
      { key: 'id', sql: warehouseId },
      { key: 'warehouse_id', sql: warehouseId },
      { key: 'location_id', sql: '(select to_json(id::text)::text from store2)' },
      { key: 'created_at', sql: `(select to_json(${formatDateTimeSql('created_at')})::text from store1)` },
    ],
  };
}
