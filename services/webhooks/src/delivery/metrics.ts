import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry, type Knex } from '@bo/runtime';

const registers = [metricsRegistry];
const SERVICE = 'webhooks';

/** Outcomes of one attempt: delivered (2xx), failed (another status), gone (410), error (no answer: refused target, connection, timeout). */
export type AttemptOutcome = 'delivered' | 'failed' | 'gone' | 'error';

const attempts = new Counter({
  name: 'bo_webhook_attempts_total',
  help: 'Webhook delivery attempts, by outcome (delivered, failed: a non-2xx answer, gone: 410, error: no answer or a refused target)',
  labelNames: ['service', 'outcome'] as const,
  registers,
});
const latency = new Histogram({
  name: 'bo_webhook_attempt_duration_seconds',
  help: 'How long webhook attempts took, connecting and the answer included, by outcome',
  labelNames: ['service', 'outcome'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers,
});

export function countAttempt(outcome: AttemptOutcome, durationMs: number): void {
  attempts.inc({ service: SERVICE, outcome });
  latency.observe({ service: SERVICE, outcome }, durationMs / 1000);
}

/** The databases of the webhooks services of this process, read on scrape. */
const watched = new Set<Knex>();

export function watchBacklog(db: Knex): () => void {
  watched.add(db);
  return () => watched.delete(db);
}

interface Backlog {
  endpoints: Array<{ endpoint_id: number; pending: number }>;
  oldestSeconds: number;
}

/** One query per scrape for both gauges; a database that does not answer in time leaves them out. */
let scrape: Promise<Backlog[]> | undefined;
function backlogs(): Promise<Backlog[]> {
  scrape ??= Promise.all(
    [...watched].map(async (db) => {
      const rows = (await db('deliveries')
        .where({ status: 'pending' })
        .groupBy('endpoint_id')
        .select('endpoint_id', db.raw('count(*)::int as pending'), db.raw('extract(epoch from now() - min(created_at))::float as oldest'))
        .timeout(1000, { cancel: true })) as Array<{ endpoint_id: number; pending: number; oldest: number }>;
      return { endpoints: rows, oldestSeconds: Math.max(0, ...rows.map((r) => r.oldest)) };
    }),
  )
    .catch(() => [])
    .finally(() => setImmediate(() => (scrape = undefined)));
  return scrape;
}

new Gauge({
  name: 'bo_webhook_backlog',
  help: 'Webhook deliveries not delivered yet (due, retrying or in flight), per endpoint',
  labelNames: ['service', 'endpoint'] as const,
  registers,
  async collect() {
    this.reset();
    for (const b of await backlogs())
      for (const e of b.endpoints) this.set({ service: SERVICE, endpoint: String(e.endpoint_id) }, e.pending);
  },
});

new Gauge({
  name: 'bo_webhook_oldest_pending_seconds',
  help: 'Age of the oldest webhook delivery not delivered yet (0 when none waits)',
  labelNames: ['service'] as const,
  registers,
  async collect() {
    this.reset();
    const all = await backlogs();
    if (all.length) this.set({ service: SERVICE }, Math.max(0, ...all.map((b) => b.oldestSeconds)));
  },
});
