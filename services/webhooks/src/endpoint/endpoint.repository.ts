import { selectPage, type Knex, type PageRequest } from '@bo/runtime';
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

/** A new endpoint of the organization, as stored. */
export async function insertEndpoint(
  db: Knex,
  row: Pick<EndpointRow, 'org_id' | 'url' | 'description' | 'secret'> & { events: readonly string[] },
): Promise<EndpointRow> {
  const [stored] = (await db('endpoints')
    .insert({ ...row, events: JSON.stringify(row.events) })
    .returning('*')) as EndpointRow[];
  return stored as EndpointRow;
}

/** Writes `changes` to the endpoint with its next version, answering the row as it now is. */
export async function updateEndpoint(
  db: Knex,
  row: Pick<EndpointRow, 'id' | 'version'>,
  changes: Record<string, unknown>,
): Promise<EndpointRow> {
  const [updated] = (await db('endpoints')
    .where({ id: row.id })
    .update({ ...changes, version: row.version + 1, updated_at: db.fn.now() })
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
