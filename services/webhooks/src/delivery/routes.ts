import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { consumer } from '@bo/contracts';
import {
  AppError,
  BusError,
  type EventRoutes,
  type Knex,
  type Logger,
  type OneStatementWrite,
  periodicTask,
  type SqlStatement,
  type BackgroundTask,
} from '@bo/runtime';
import { matches } from '../domain/patterns';

/**
 * Which event types reach the webhooks consumer: only those some enabled endpoint (of any
 * organization) subscribes to, so a system without endpoints pays nothing for the events it
 * publishes (docs/webhooks.md).
 *
 * The guarantee: an event published once an endpoint is visible (its create or update committed)
 * reaches the consumer. Every call to RabbitMQ is made outside any database transaction, holding no
 * lock and no connection, and bounded by WEBHOOKS_BROKER_TIMEOUT_MS. Three rules keep the guarantee:
 * - a write that routes more (create; an update that enables, or changes `events`) first claims its
 *   types (a route_claims row, committed), then routes them (Bus.addRoutes), and commits its endpoint
 *   only once no reconcile that could have read the endpoints before its claim may still unroute
 *   (below); its transaction deletes the claim, whose types the endpoint now wants;
 * - a reconcile, the only one to unroute (Bus.setRoutes), holds the one route lease while it runs:
 *   it reads what is wanted (the enabled endpoints' types and every live claim's), sets the routes
 *   to it, then reads again and routes what was claimed meanwhile, and only then lets the lease go;
 * - a writer waits while a lease is held, and routes again if a lease ended without being let go
 *   (a reconcile that failed or died half-way) after the writer last routed.
 * So a reconcile either read the writer's claim, or read before it and routes it again before its
 * lease ends, which the writer waits for. Disabling or deleting an endpoint unroutes nothing at
 * once; the next reconcile does (every WEBHOOKS_ROUTES_RECONCILE_MS, one minute by default, and at start).
 */
export const DELIVERIES_CONSUMER = consumer.webhooksDeliveries.name;

/** The types the consumer takes, which are the ones it can be routed. */
export const deliverableTypes: readonly string[] = consumer.webhooksDeliveries.events;

/** How long a claim keeps its types wanted: far longer than a write takes, which commits only with it live. */
const CLAIM_TTL_MS = 5 * 60_000;
/** A write commits only with its claim live at least this much longer: no reconcile can see it expire before the commit. */
const CLAIM_MARGIN_MS = 60_000;
/** How often a writer looks whether the reconcile it waits for let the lease go. */
const LEASE_POLL_MS = 20;

/** The event types endpoint patterns (`*`, `prefix.*`, exact) match among the consumer's. */
export function routedTypes(patterns: readonly string[]): string[] {
  return deliverableTypes.filter((type) => patterns.some((p) => matches(p, type)));
}

/** The types wanted now: every enabled endpoint's, of any organization, and every live claim's. */
export async function currentRoutes(db: Knex): Promise<string[]> {
  const { rows } = await db.raw<{ rows: Array<{ pattern: string }> }>(
    `select p.pattern from endpoints e, jsonb_array_elements_text(e.events) as p(pattern)
      where e.status = 'enabled' and e.deleted_at is null
     union
     select t.type from route_claims c, jsonb_array_elements_text(c.types) as t(type)
      where c.expires_at > now()`,
  );
  return routedTypes(rows.map((r) => r.pattern));
}

/** A call to RabbitMQ bounded by `ms`: past it, a retryable 503 for a write (or a failed reconcile). */
async function brokerCall(call: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      call,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new BusError('timeout', `RabbitMQ did not answer within ${ms} ms`)), ms);
      }),
    ]);
  } catch (err) {
    if (!(err instanceof BusError)) throw err;
    throw new AppError(503, 'service_unavailable', `Events cannot be routed to webhooks now (${err.message}); retry`).asTransient();
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a reconcile holds the lease now, and whether one ended without letting it go since `since`. */
async function leaseSince(db: Knex, since: Date): Promise<{ held: boolean; broken: boolean }> {
  const { rows } = await db.raw<{ rows: Array<{ held: boolean; broken: boolean }> }>(
    `select holder is not null and until > now() as held,
            (holder is not null and until <= now() and until >= ?) or coalesce(broken_until >= ?, false) as broken
       from route_lease`,
    [since, since],
  );
  return rows[0] ?? { held: false, broken: false };
}

/**
 * Routes the types `patterns` match before an endpoint write that wants them, outside its
 * transaction (the write's gather step): claims them, routes them, and waits out a reconcile
 * holding the lease (routing again after one that broke). Answers the claim, which the write's
 * transaction settles (settleClaim); nothing to route answers none. Taking longer than the timeout
 * twice over is a retryable 503, and the claim expires by itself.
 */
export async function routeBeforeWrite(
  db: Knex,
  routes: EventRoutes,
  patterns: readonly string[],
  timeoutMs: number,
): Promise<string | undefined> {
  const types = routedTypes(patterns);
  if (!types.length) return undefined;
  const { rows } = await db.raw<{ rows: Array<{ id: string; at: Date }> }>(
    `insert into route_claims (types, expires_at) values (?::jsonb, now() + make_interval(secs => ?)) returning id, now() as at`,
    [JSON.stringify(types), CLAIM_TTL_MS / 1000],
  );
  const { id, at } = rows[0] as { id: string; at: Date };
  let since = at;
  const deadline = Date.now() + 2 * timeoutMs;
  await brokerCall(routes.addRoutes(DELIVERIES_CONSUMER, types), timeoutMs);
  for (;;) {
    const lease = await leaseSince(db, since);
    if (!lease.held && !lease.broken) return id;
    if (Date.now() > deadline)
      throw new AppError(
        503,
        'service_unavailable',
        'Events cannot be routed to webhooks now (a reconcile of the routes is running); retry',
      ).asTransient();
    if (lease.held) await sleep(LEASE_POLL_MS);
    else {
      // A reconcile broke off after this routed: it may have unrouted these types, and routes nothing back.
      since = ((await db.raw<{ rows: Array<{ at: Date }> }>('select now() as at')).rows[0] as { at: Date }).at;
      await brokerCall(routes.addRoutes(DELIVERIES_CONSUMER, types), timeoutMs);
    }
  }
}

/** In the write's transaction: the claim is done with (its endpoint wants its types now), and still live well past the commit. */
export async function settleClaim(trx: Knex.Transaction, claim: string | undefined): Promise<void> {
  if (claim === undefined) return;
  const settle = settleSql(claim);
  const { rowCount } = await trx.raw<{ rowCount: number | null }>(settle.sql, settle.bindings);
  if (!rowCount) throw new AppError(503, 'service_unavailable', "Routing the endpoint's events took too long; retry").asTransient();
}

/** The delete of a claim still live well past now (CLAIM_MARGIN_MS), answering its id. */
function settleSql(claim: string): SqlStatement {
  return {
    sql: 'delete from route_claims where id = ? and expires_at > now() + make_interval(secs => ?) returning id',
    bindings: [claim, CLAIM_MARGIN_MS / 1000],
  };
}

/**
 * An endpoint write stored as one statement (OneStatementWrite), with its claim settled by that
 * statement (settleClaim as its last part): the endpoint commits with the claim's delete, and only
 * while the claim is live well past the commit; else the statement writes nothing, and the write's
 * locked way answers (settleClaim's retryable 503). No claim: the write as it is.
 */
export function settlingClaim<W extends Pick<OneStatementWrite, 'parts' | 'expects'>>(write: W, claim: string | undefined): W {
  if (claim === undefined) return write;
  const settled = `(select count(*) from store${write.parts.length + 1}) = 1`;
  return { ...write, parts: [...write.parts, settleSql(claim)], expects: write.expects ? `${write.expects} and ${settled}` : settled };
}

/**
 * Routes exactly what is wanted, holding the route lease (answers the types routed); another
 * reconcile holding it now: nothing (answers undefined). A failure leaves the lease to end by
 * itself, which tells writers to route again.
 */
export async function reconcileRoutes(db: Knex, routes: EventRoutes, timeoutMs: number): Promise<string[] | undefined> {
  const holder = randomUUID();
  const taken = await db('route_lease')
    .whereRaw('holder is null or until < now()')
    .update({
      holder,
      until: db.raw(`now() + make_interval(secs => ?)`, [(3 * timeoutMs) / 1000]),
      // A lease that ended held broke off: writers since its end route again.
      broken_until: db.raw(`case when holder is not null then greatest(broken_until, until) else broken_until end`),
    });
  if (taken === 0) return undefined;
  const wanted = await currentRoutes(db);
  await brokerCall(routes.setRoutes(DELIVERIES_CONSUMER, wanted), timeoutMs);
  const now = await currentRoutes(db);
  const claimed = now.filter((t) => !wanted.includes(t));
  if (claimed.length) await brokerCall(routes.addRoutes(DELIVERIES_CONSUMER, claimed), timeoutMs);
  await db('route_lease').where({ holder }).update({ holder: null });
  await db('route_claims').where('expires_at', '<', db.fn.now()).delete();
  return now;
}

/** The periodic reconcile: at start, then every interval. */
export function routesReconcile(db: Knex, routes: EventRoutes, log: Logger, intervalMs: number, timeoutMs: number): BackgroundTask {
  return periodicTask('webhook-routes', intervalMs, log, () => reconcileRoutes(db, routes, timeoutMs));
}
