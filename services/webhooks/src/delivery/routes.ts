import { consumers } from '@bo/contracts';
import { AppError, BusError, type EventRoutes, type Knex, type Logger, periodicTask, type BackgroundTask } from '@bo/runtime';
import { matches } from '../domain/patterns';

/**
 * Which event types reach the webhooks consumer: only those some enabled endpoint (of any
 * organization) subscribes to, so a system without endpoints pays nothing for the events it
 * publishes (docs/webhooks.md).
 *
 * The guarantee: an event published once an endpoint is visible (its create or update committed)
 * reaches the consumer. Two rules keep it:
 * - an endpoint write that routes more (create; an update that enables, or changes `events`) takes
 *   the routes lock shared in its transaction and routes its types (Bus.addRoutes) before it commits;
 * - a reconcile, which unroutes what no enabled endpoint wants any more (Bus.setRoutes), takes the
 *   lock exclusively and reads the endpoints under it, routing before it commits.
 * So a reconcile runs either before such a write took the lock (and the write routes after it), or
 * after the write committed (and sees its endpoint): it never unroutes a type of an endpoint
 * committing meanwhile. Disabling or deleting an endpoint unroutes nothing at once; the next
 * reconcile does (every WEBHOOKS_ROUTES_RECONCILE_MS, one minute by default, and at start).
 */
export const DELIVERIES_CONSUMER = 'webhooks.deliveries';

/** The types the consumer takes, which are the ones it can be routed. */
export const deliverableTypes: readonly string[] = consumers.find((c) => c.name === DELIVERIES_CONSUMER)?.events ?? [];

/** The event types endpoint patterns (`*`, `prefix.*`, exact) match among the consumer's. */
export function routedTypes(patterns: readonly string[]): string[] {
  return deliverableTypes.filter((type) => patterns.some((p) => matches(p, type)));
}

/** The types every enabled endpoint of any organization wants, together. */
export async function currentRoutes(db: Knex): Promise<string[]> {
  const { rows } = await db.raw<{ rows: Array<{ pattern: string }> }>(
    `select distinct p.pattern from endpoints e, jsonb_array_elements_text(e.events) as p(pattern)
     where e.status = 'enabled' and e.deleted_at is null`,
  );
  return routedTypes(rows.map((r) => r.pattern));
}

/**
 * The advisory lock serializing routing with reconciling, per schema (one system's webhooks
 * service): `shared` for endpoint writers, exclusive for the reconcile. Held to the transaction's end.
 */
export function routesLockSql(mode: 'shared' | 'exclusive'): string {
  const fn = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  return `select ${fn}(hashtext('webhooks.routes:' || current_schema()))`;
}

/**
 * Routes the types an endpoint's patterns match, inside the write's transaction and before it
 * commits. A bus that cannot route fails the write with a retryable 503: the transaction rolls back,
 * and nothing changed (a type routed meanwhile only costs until the next reconcile).
 */
export async function routeEndpoint(trx: Knex.Transaction, routes: EventRoutes, patterns: readonly string[]): Promise<void> {
  await trx.raw(routesLockSql('shared'));
  try {
    await routes.addRoutes(DELIVERIES_CONSUMER, routedTypes(patterns));
  } catch (err) {
    if (!(err instanceof BusError)) throw err;
    throw new AppError(503, 'service_unavailable', `Events cannot be routed to webhooks now (${err.message}); retry`).asTransient();
  }
}

/** Routes exactly what the enabled endpoints want, under the exclusive lock. */
export async function reconcileRoutes(db: Knex, routes: EventRoutes): Promise<string[]> {
  return db.transaction(async (trx) => {
    await trx.raw(routesLockSql('exclusive'));
    // Read committed: this statement's snapshot is taken after the lock, so it sees every writer that held it.
    const types = await currentRoutes(trx);
    await routes.setRoutes(DELIVERIES_CONSUMER, types);
    return types;
  });
}

/** The periodic reconcile: at start, then every interval. */
export function routesReconcile(db: Knex, routes: EventRoutes, log: Logger, intervalMs: number): BackgroundTask {
  return periodicTask('webhook-routes', intervalMs, log, () => reconcileRoutes(db, routes));
}
