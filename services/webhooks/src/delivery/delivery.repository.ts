import { formatDateTimeSql } from '@bo/kernel';
import { selectPage, type Knex, type OneStatementWrite, type PageRequest, type SqlStatement } from '@bo/runtime';
import type { DeliveryRow, QueuedDelivery } from './delivery.record';
import { QUEUED_AGAIN, type Redelivery } from './decide-redelivery';
import { wakeDispatchers } from './wake';

/** The SQL of deliveries and their attempts as the API reads and requeues them (the dispatcher has its own). */

export interface AttemptRow {
  attempt: number;
  at: Date;
  http_status: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

/** Queues a delivery (its row as the dispatcher will claim it) and answers it as stored. */
export async function insertDelivery(db: Knex, row: QueuedDelivery): Promise<DeliveryRow> {
  const [stored] = (await db('deliveries')
    .insert({ ...row, payload: JSON.stringify(row.payload) })
    .returning('*')) as DeliveryRow[];
  return stored as DeliveryRow;
}

/**
 * insertDelivery as one statement, only from the organization's live endpoint while it is enabled
 * (what a ping is decided on: decidePing), else nothing. The endpoint is held (FOR SHARE) before
 * the delivery is written, as the locked way holds it first: a delete or a disable in flight is
 * waited for, and the endpoint as it then is decides. What the database makes is filled in where
 * the reply says `id` and `created_at`; once it has committed, it wakes the dispatchers.
 */
export function queuedAlone(row: QueuedDelivery): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills' | 'afterCommit'> {
  return {
    parts: [
      {
        sql: `insert into deliveries (org_id, endpoint_id, event_id, event_type, payload, next_attempt_at, traceparent, tracestate)
              select e.org_id, e.id, ?, ?, ?::jsonb, ?, ?, ? from endpoints e
               where e.id = ? and e.org_id = ? and e.deleted_at is null and e.status = 'enabled' for share
              returning id, ${formatDateTimeSql('created_at')} as created_at`,
        bindings: [
          row.event_id,
          row.event_type,
          JSON.stringify(row.payload),
          row.next_attempt_at,
          row.traceparent,
          row.tracestate,
          row.endpoint_id,
          row.org_id,
        ],
      },
    ],
    expects: '(select count(*) from store1) = 1',
    fills: [
      { key: 'id', sql: '(select id::text from store1)' },
      { key: 'created_at', sql: '(select to_json(created_at)::text from store1)' },
    ],
    afterCommit: wakeDispatchers,
  };
}

/** A page of the endpoint's log, newest first, optionally of one status. */
export async function pageOfDeliveries(
  db: Knex,
  orgId: number,
  endpointId: number,
  status: DeliveryRow['status'] | undefined,
  page: PageRequest,
) {
  const query = db('deliveries').where({ endpoint_id: endpointId, org_id: orgId }).select('*');
  if (status) query.where({ status });
  return selectPage<DeliveryRow>(query, page, (p) => p.orderBy('id', 'desc'));
}

/** One delivery of the endpoint and organization, if there is one. */
export async function findDelivery(db: Knex, orgId: number, endpointId: number, id: number): Promise<DeliveryRow | undefined> {
  return (await db('deliveries').where({ id, endpoint_id: endpointId, org_id: orgId }).first()) as DeliveryRow | undefined;
}

/** A page of a delivery's attempts, newest first. */
export async function pageOfAttempts(db: Knex, deliveryId: number, page: PageRequest) {
  return selectPage<AttemptRow>(db('delivery_attempts').where({ delivery_id: deliveryId }).select('*'), page, (p) =>
    p.orderBy('attempt', 'desc').orderBy('id', 'desc'),
  );
}

/** Due now with a fresh retry schedule, and the same webhook-id as before; an attempt in flight loses its lease. */
const REQUEUE = `update deliveries set status = 'pending', failed_in_a_row = 0, leased_until = null, lease_id = null, next_attempt_at = now()`;

/**
 * The update queueing again the deliveries `which` names of the endpoint `endpoint` gives (SQL of its
 * id): one by its id, or every one made since a time that failed or is failing.
 */
function requeueOf(endpoint: SqlStatement, which: Redelivery): SqlStatement {
  const sql = `${REQUEUE} where endpoint_id = ${endpoint.sql}`;
  if ('deliveryId' in which) return { sql: `${sql} and id = ?`, bindings: [...endpoint.bindings, which.deliveryId] };
  return {
    sql: `${sql} and created_at >= ? and (status = 'failed' or (status = 'pending' and failed_in_a_row > 0))`,
    bindings: [...endpoint.bindings, which.since],
  };
}

/** Queues the deliveries of the endpoint `which` names again; answers how many rows it moved (0: none such). */
export async function requeue(db: Knex, endpointId: number, which: Redelivery): Promise<number> {
  const update = requeueOf({ sql: '?', bindings: [endpointId] }, which);
  const { rowCount } = await db.raw<{ rowCount: number | null }>(update.sql, update.bindings);
  return rowCount ?? 0;
}

/**
 * requeue of the organization's live endpoint as one statement: the endpoint is locked first
 * (`store1`), the order of every endpoint write that touches its deliveries, then the deliveries
 * updated (`store2`). It must find the endpoint, and the one delivery it names, else it writes
 * nothing. The count, and the answer's message telling it (`redelivered`), are filled in; its
 * commit wakes the dispatchers.
 */
export function redeliveryAlone(
  orgId: number,
  endpointId: number,
  which: Redelivery,
): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills' | 'afterCommit'> {
  const update = requeueOf({ sql: '(select id from store1)', bindings: [] }, which);
  const count = '(select count(*) from store2)';
  return {
    parts: [
      { sql: 'select id from endpoints where id = ? and org_id = ? and deleted_at is null for update', bindings: [endpointId, orgId] },
      { sql: `${update.sql} returning id`, bindings: update.bindings },
    ],
    expects: `(select count(*) from store1) = 1${'deliveryId' in which ? ` and ${count} = 1` : ''}`,
    fills: [
      { key: 'redelivered', sql: `${count}::text` },
      { key: 'message', sql: `to_json(${count} || '${QUEUED_AGAIN.replaceAll("'", "''")}')::text` },
    ],
    afterCommit: wakeDispatchers,
  };
}
