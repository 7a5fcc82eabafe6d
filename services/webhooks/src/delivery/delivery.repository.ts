import { selectPage, type Knex, type PageRequest } from '@bo/runtime';
import type { DeliveryRow } from './delivery.record';

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
export async function insertDelivery(
  db: Knex,
  row: Pick<
    DeliveryRow,
    'org_id' | 'endpoint_id' | 'event_id' | 'event_type' | 'payload' | 'next_attempt_at' | 'traceparent' | 'tracestate'
  >,
): Promise<DeliveryRow> {
  const [stored] = (await db('deliveries')
    .insert({ ...row, payload: JSON.stringify(row.payload) })
    .returning('*')) as DeliveryRow[];
  return stored as DeliveryRow;
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
const again = { status: 'pending', failed_in_a_row: 0, leased_until: null, lease_id: null };

/** Queues one delivery of the endpoint again; answers how many rows it moved (0: no such delivery). */
export async function requeueDelivery(db: Knex, endpointId: number, id: number): Promise<number> {
  return db('deliveries')
    .where({ id, endpoint_id: endpointId })
    .update({ ...again, next_attempt_at: db.fn.now() });
}

/** Queues again every delivery of the endpoint made since `since` that failed or is failing. */
export async function requeueFailedSince(db: Knex, endpointId: number, since: Date): Promise<number> {
  return db('deliveries')
    .where({ endpoint_id: endpointId })
    .where('created_at', '>=', since)
    .whereRaw(`(status = 'failed' or (status = 'pending' and failed_in_a_row > 0))`)
    .update({ ...again, next_attempt_at: db.fn.now() });
}
