import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Knex } from '../db';

/**
 * The one Prometheus registry of this process: the single-process mode serves every service's
 * metrics from the gateway's /metrics, told apart by the `service` label.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

const registers = [metricsRegistry];
/** Seconds: from a fast read (1 ms) to the longest RPC timeout worth telling apart. */
const buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const metrics = {
  /** Its `_count` is the number of requests. */
  httpDuration: new Histogram({
    name: 'bo_http_request_duration_seconds',
    help: 'HTTP requests answered by the gateway, by route path and status, and how long they took',
    labelNames: ['service', 'method', 'route', 'status'] as const,
    buckets,
    registers,
  }),
  rpcClientDuration: new Histogram({
    name: 'bo_rpc_client_duration_seconds',
    help: 'RPC calls made, by operation and outcome (ok, refused, failed, timeout, unroutable, unavailable, lost), and how long the caller waited',
    labelNames: ['service', 'operation', 'outcome'] as const,
    buckets,
    registers,
  }),
  rpcHandlerDuration: new Histogram({
    name: 'bo_rpc_handler_duration_seconds',
    help: 'RPC requests handled, by operation and outcome (ok, refused, failed), and how long the handler took',
    labelNames: ['service', 'operation', 'outcome'] as const,
    buckets,
    registers,
  }),
  eventsConsumed: new Counter({
    name: 'bo_events_consumed_total',
    help: 'Event deliveries handled, by consumer and outcome (ok, retry: failed and will be tried again, dead: failed its last attempt)',
    labelNames: ['service', 'consumer', 'outcome'] as const,
    registers,
  }),
  eventHandlerDuration: new Histogram({
    name: 'bo_event_handler_duration_seconds',
    help: 'How long event handlers took, by consumer',
    labelNames: ['service', 'consumer'] as const,
    buckets,
    registers,
  }),
  eventsPublished: new Counter({
    name: 'bo_events_published_total',
    help: 'Events the outbox relay published (ok) or failed to publish (failed; they stay pending)',
    labelNames: ['service', 'outcome'] as const,
    registers,
  }),
  eventsDeadLettered: new Counter({
    name: 'bo_events_dead_lettered_total',
    help: 'Events this process gave up on after EVENT_MAX_ATTEMPTS (RabbitMQ: moved to the .dead queue), by consumer',
    labelNames: ['service', 'consumer'] as const,
    registers,
  }),
};

/** What /metrics answers. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}

/** An RPC answer or failure as a bounded label value. */
export function rpcOutcome(result: { ok: boolean; status: number } | { kind: string }): string {
  if ('kind' in result) return result.kind;
  if (result.ok) return 'ok';
  return result.status < 500 ? 'refused' : 'failed';
}

/** Seconds since a `performance.now()` reading. */
export function secondsSince(startedMs: number): number {
  return (performance.now() - startedMs) / 1000;
}

// ---- Gauges read on scrape, from the databases of the services running in this process ----

interface Watched {
  db: Knex;
  /** Its schema has the runtime's outbox and delivery tables (every service; not the gateway). */
  outbox: boolean;
}

const watched = new Map<string, Watched>();

/** Reports a service's pool (and, for a service, its outbox and stored dead letters) on every scrape until the returned stop. */
export function watchDatabase(service: string, db: Knex, opts: { outbox: boolean }): () => void {
  const entry = { db, outbox: opts.outbox };
  watched.set(service, entry);
  return () => {
    if (watched.get(service) === entry) watched.delete(service);
  };
}

/** A scrape must answer even while a database does not: its gauges are then left out. */
const SCRAPE_QUERY_TIMEOUT_MS = 2000;
/**
 * The database's own limit on a scrape query (a lock wait included): the query is cancelled and its
 * pooled connection freed, where the timeout above only stops waiting for it while it holds the slot.
 */
const SCRAPE_STATEMENT_TIMEOUT_MS = 1000;

interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
}

new Gauge({
  name: 'bo_db_pool_connections',
  help: 'Database pool connections per service: used (checked out), free (idle), pending (requests waiting for one)',
  labelNames: ['service', 'state'] as const,
  registers,
  collect() {
    this.reset();
    for (const [service, { db }] of watched) {
      const pool = (db.client as { pool?: TarnPool }).pool;
      if (!pool) continue;
      this.set({ service, state: 'used' }, pool.numUsed());
      this.set({ service, state: 'free' }, pool.numFree());
      this.set({ service, state: 'pending' }, pool.numPendingAcquires() + pool.numPendingCreates());
    }
  },
});

interface OutboxSnapshot {
  service: string;
  pending: number;
  oldestAgeSeconds: number;
  deadLetters: Array<{ consumer: string; count: number }>;
}

/** One query per service and scrape: the three gauges below share it. */
let snapshot: { at: number; value: Promise<OutboxSnapshot[]> } | undefined;

function outboxSnapshots(): Promise<OutboxSnapshot[]> {
  const now = Date.now();
  if (!snapshot || now - snapshot.at > 1000) snapshot = { at: now, value: readOutboxes() };
  return snapshot.value;
}

async function readOutboxes(): Promise<OutboxSnapshot[]> {
  const services = [...watched].filter(([, w]) => w.outbox);
  const read = await Promise.all(
    services.map(([service, { db }]) => withTimeout(readOutbox(service, db), SCRAPE_QUERY_TIMEOUT_MS).catch(() => undefined)),
  );
  return read.filter((s): s is OutboxSnapshot => s !== undefined);
}

interface OutboxRow {
  pending: number;
  oldest: number;
  dead: Array<{ consumer: string; count: number }>;
}

async function readOutbox(service: string, db: Knex): Promise<OutboxSnapshot> {
  // Both read the partial index of unpublished rows (outbox_unpublished, on id): the count is as
  // cheap as the backlog is small, and the oldest row is the first by id, one index entry away.
  const rows = await db.transaction(async (trx) => {
    await trx.raw(`set local statement_timeout = ${SCRAPE_STATEMENT_TIMEOUT_MS}`);
    const result: { rows: OutboxRow[] } = await trx.raw(`
      select (select count(*)::int from outbox where published_at is null) as pending,
             coalesce((select extract(epoch from now() - created_at)::float8 from outbox where published_at is null order by id limit 1), 0) as oldest,
             (select coalesce(json_agg(d), '[]') from (select consumer, count(*)::int as count from event_dead_letters group by consumer) d) as dead`);
    return result.rows;
  });
  const row = rows[0]!;
  return { service, pending: row.pending, oldestAgeSeconds: row.oldest, deadLetters: row.dead };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('scrape query timed out')), ms);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

new Gauge({
  name: 'bo_outbox_pending_events',
  help: 'Outbox rows not yet published, per service',
  labelNames: ['service'] as const,
  registers,
  async collect() {
    const all = await outboxSnapshots();
    this.reset();
    for (const s of all) this.set({ service: s.service }, s.pending);
  },
});

new Gauge({
  name: 'bo_outbox_oldest_pending_age_seconds',
  help: 'Age of the oldest unpublished outbox row, per service (0 when none waits)',
  labelNames: ['service'] as const,
  registers,
  async collect() {
    const all = await outboxSnapshots();
    this.reset();
    for (const s of all) this.set({ service: s.service }, s.oldestAgeSeconds);
  },
});

new Gauge({
  name: 'bo_event_dead_letters',
  help: 'Events given up on and kept in the service schema (event_dead_letters; the in-process bus), by consumer. Over RabbitMQ they wait in the .dead queues instead',
  labelNames: ['service', 'consumer'] as const,
  registers,
  async collect() {
    const all = await outboxSnapshots();
    this.reset();
    for (const s of all) for (const d of s.deadLetters) this.set({ service: s.service, consumer: d.consumer }, d.count);
  },
});
