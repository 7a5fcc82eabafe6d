import { formatDateTimeSql } from '@bo/kernel';
import { selectPage, type ClaimedRows, type ClaimRead, type Knex, type OneStatementWrite, type PageRequest } from '@bo/runtime';
import type { NewEndpoint } from './decide-new-endpoint';
import { endpointRefusals } from './endpoint-refusals';
import type { EndpointRow } from './endpoint.record';

/** The SQL of endpoints: the handlers decide, these read and write. */

/** The organization's live endpoint, locked for an update; another organization's is not found. */
export async function lockEndpoint(trx: Knex.Transaction, orgId: number, id: number): Promise<EndpointRow> {
  const row = (await trx('endpoints').where({ id, org_id: orgId }).whereNull('deleted_at').forUpdate().first()) as EndpointRow | undefined;
  if (!row) throw endpointRefusals.endpointNotFound(id);
  return row;
}

/** The organization's live endpoint, read. */
export async function findEndpoint(db: Knex, orgId: number, id: number): Promise<EndpointRow> {
  const row = (await db('endpoints').where({ id, org_id: orgId }).whereNull('deleted_at').first()) as EndpointRow | undefined;
  if (!row) throw endpointRefusals.endpointNotFound(id);
  return row;
}

/**
 * The organization's live endpoint read with no lock, with its row version (`read`, its xmin), for a
 * change stored only while it is still that row (endpointChangeAlone).
 */
export async function readEndpoint(db: Knex, orgId: number, id: number): Promise<EndpointAsRead> {
  const read = endpointRead(orgId, id);
  const { rows } = await db.raw<{ rows: ClaimedRows }>(read.sql, read.bindings);
  return endpointAsRead(rows, id);
}

/** What readEndpoint reads, as a select a key's claim may run for it (GatherApply.readWithClaim). */
export function endpointRead(orgId: number, id: number): ClaimRead {
  return {
    sql: 'select e.*, e.xmin::text as read_version from endpoints e where e.id = ? and e.org_id = ? and e.deleted_at is null',
    bindings: [id, orgId],
  };
}

/** The endpoint of endpointRead's rows, with its row version as read; none is not found. */
export function endpointAsRead(rows: ClaimedRows, id: number): EndpointAsRead {
  const found = rows[0] as (EndpointRow & { read_version: string }) | undefined;
  if (!found) throw endpointRefusals.endpointNotFound(id);
  const { read_version: read, ...row } = found;
  return { row, read };
}

/** An endpoint read with no lock, and its row version (xmin) as read. */
export interface EndpointAsRead {
  row: EndpointRow;
  read: string;
}

/** A column's value as a statement binds it: the events, a JSON array, as its text (a JavaScript array would bind as a PostgreSQL one). */
function columnValue(column: string, value: unknown): Knex.RawBinding {
  if (column === 'events') return JSON.stringify(value);
  return (value ?? null) as Knex.RawBinding;
}

/**
 * updateEndpoint's write as one statement, only while the endpoint is the row read (`read`); else
 * nothing. The time it was updated is filled in where the reply says `updated_at`. Its update is the
 * statement's first part (`store1`).
 */
export function endpointChangeAlone(
  row: Pick<EndpointRow, 'id' | 'version'>,
  changes: object,
  read: string,
): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  const values = changes as Record<string, unknown>;
  const columns = Object.keys(values);
  return {
    parts: [
      {
        sql: `update endpoints set ${[...columns.map((c) => `"${c}" = ?`), 'version = ?', 'updated_at = now()'].join(', ')}
               where id = ? and xmin::text = ? returning ${formatDateTimeSql('updated_at')} as updated_at`,
        bindings: [...columns.map((c) => columnValue(c, values[c])), row.version + 1, row.id, read],
      },
    ],
    expects: '(select count(*) from store1) = 1',
    fills: [{ key: 'updated_at', sql: '(select to_json(updated_at)::text from store1)' }],
  };
}

/** deleteEndpoint of the organization's live endpoint as one statement, which must find it; else nothing. */
export function endpointDeleteAlone(orgId: number, id: number): Pick<OneStatementWrite, 'parts' | 'expects'> {
  return {
    parts: [{ sql: 'delete from endpoints where id = ? and org_id = ? and deleted_at is null returning id', bindings: [id, orgId] }],
    expects: '(select count(*) from store1) = 1',
  };
}

/** A new endpoint of the organization, as stored. */
export async function insertEndpoint(db: Knex, row: NewEndpoint): Promise<EndpointRow> {
  const [stored] = (await db('endpoints')
    .insert({ ...row, events: JSON.stringify(row.events) })
    .returning('*')) as EndpointRow[];
  return stored as EndpointRow;
}

/**
 * insertEndpoint as one statement (its first part, `store1`), which decides on nothing stored. What
 * the database makes is filled in where the reply says `id`, `created_at` and `updated_at`.
 */
export function endpointInsertAlone(row: NewEndpoint): Pick<OneStatementWrite, 'parts' | 'fills'> {
  return {
    parts: [
      {
        sql: `insert into endpoints (org_id, url, description, events, secret) values (?, ?, ?, ?::jsonb, ?)
              returning id, ${formatDateTimeSql('created_at')} as created_at, ${formatDateTimeSql('updated_at')} as updated_at`,
        bindings: [row.org_id, row.url, row.description, JSON.stringify(row.events), row.secret],
      },
    ],
    fills: [
      { key: 'id', sql: '(select id::text from store1)' },
      { key: 'created_at', sql: '(select to_json(created_at)::text from store1)' },
      { key: 'updated_at', sql: '(select to_json(updated_at)::text from store1)' },
    ],
  };
}

/** Writes `changes` to the endpoint with its next version, answering the row as it now is. */
export async function updateEndpoint(db: Knex, row: Pick<EndpointRow, 'id' | 'version'>, changes: object): Promise<EndpointRow> {
  const columns = Object.fromEntries(Object.entries(changes).map(([c, v]) => [c, columnValue(c, v)]));
  const [updated] = (await db('endpoints')
    .where({ id: row.id })
    .update({ ...columns, version: row.version + 1, updated_at: db.fn.now() })
    .returning('*')) as EndpointRow[];
  return updated as EndpointRow;
}

/** Deleted with its deliveries and their log (the foreign keys cascade). */
export async function deleteEndpoint(db: Knex, id: number): Promise<void> {
  await db('endpoints').where({ id }).delete();
}

/** The organization's live endpoints, a page of them in id order, and how many there are. */
export async function pageOfEndpoints(db: Knex, orgId: number, page: PageRequest) {
  return selectPage<EndpointRow>(db('endpoints').where({ org_id: orgId }).whereNull('deleted_at').select('*'), page, (p) =>
    p.orderBy('id'),
  );
}
