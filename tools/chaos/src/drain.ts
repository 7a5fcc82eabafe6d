import type pg from 'pg';
import { serviceDefinitions } from '@bo/launcher';
import { matchesAnySql } from '@bo/webhooks';
import type { BrokerInspector } from './broker';
import { existingTables, queryEventually } from './database';

export interface WorkState {
  /** Outbox rows not yet published, per schema. */
  unpublished: Record<string, number>;
  /** Events some consumer subscribes to (and, routed, is routed) that are not in that consumer's inbox, per consumer. */
  undelivered: Record<string, number>;
  /** Recurring contracts with a child due and not made. */
  dueContracts: number;
  /** Webhook deliveries not delivered yet (due, retrying or in flight). */
  webhooksPending: number;
  /** Ready messages in event, retry and dead queues. */
  queued: Record<string, number>;
}

const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

export function isIdle(s: WorkState): boolean {
  return sum(s.unpublished) === 0 && sum(s.undelivered) === 0 && s.dueContracts === 0 && s.webhooksPending === 0 && sum(s.queued) === 0;
}

/** Every subscription of the system: the consumer, the schema its inbox is in, the event types, whether it is routed. */
export function subscriptions(): Array<{ consumer: string; schema: string; events: readonly string[]; routed: boolean }> {
  return Object.values(serviceDefinitions).flatMap((def) =>
    (def.subscriptions ?? []).map((s) => ({ consumer: s.name, schema: def.name, events: s.events, routed: s.routes !== undefined })),
  );
}

/**
 * Of the events of its types, those a routed consumer is owed (Subscription.routes): the ones routed
 * to it when they were published, as a condition on the outbox row `o`. A routed consumer not named
 * here is owed none. Webhooks' deliveries are owed an event whose type an endpoint enabled now
 * matches, recorded after that endpoint's last change: its types were routed before that change
 * committed and stay routed while it is enabled (services/webhooks/src/delivery/routes.ts). Events
 * of types only a disabled or deleted endpoint wanted, or made before the endpoint, are not owed.
 * (An event whose transaction began while the endpoint's was committing and that was published
 * before its types were bound would count as owed wrongly: the chaos run makes its endpoints before
 * any load, so none does.)
 */
const ROUTED_OWED: Record<string, string> = {
  'webhooks.deliveries': `exists (select 1 from webhooks.endpoints e
     where e.status = 'enabled' and e.deleted_at is null and e.updated_at <= o.created_at and ${matchesAnySql('e.events', 'o.type')})`,
};

/** Events published by any service's outbox that a subscriber is owed and has not recorded in its inbox. */
export async function undeliveredEvents(
  pool: pg.Pool,
  limit = 5,
): Promise<Record<string, { count: number; examples: Array<{ event_id: string; type: string; outbox: string }> }>> {
  const tables = await existingTables(pool);
  const outboxes = [...tables].filter((t) => t.endsWith('.outbox')).map((t) => t.split('.')[0] as string);
  const out: Record<string, { count: number; examples: Array<{ event_id: string; type: string; outbox: string }> }> = {};
  for (const sub of subscriptions()) {
    if (!tables.has(`${sub.schema}.inbox`)) continue;
    const owed = sub.routed ? ROUTED_OWED[sub.consumer] : 'true';
    if (owed === undefined) continue;
    const entry = { count: 0, examples: [] as Array<{ event_id: string; type: string; outbox: string }> };
    for (const schema of outboxes) {
      const rows = await queryEventually<{ event_id: string; type: string; n: string }>(
        pool,
        `select o.event_id, o.type, count(*) over () as n from "${schema}".outbox o
          where o.type = any($1) and ${owed}
            and not exists (select 1 from "${sub.schema}".inbox i where i.consumer = $2 and i.event_id = o.event_id)
          order by o.id limit $3`,
        [sub.events, sub.consumer, limit],
      );
      entry.count += Number(rows[0]?.n ?? 0);
      entry.examples.push(...rows.map((r) => ({ event_id: r.event_id, type: r.type, outbox: schema })));
    }
    out[sub.consumer] = entry;
  }
  return out;
}

export async function workState(pool: pg.Pool, broker: BrokerInspector): Promise<WorkState> {
  const tables = await existingTables(pool);
  const unpublished: Record<string, number> = {};
  for (const t of tables) {
    if (!t.endsWith('.outbox')) continue;
    const [row] = await queryEventually<{ n: string }>(
      pool,
      `select count(*) as n from ${t
        .split('.')
        .map((p) => `"${p}"`)
        .join('.')} where published_at is null`,
    );
    unpublished[t.split('.')[0] as string] = Number(row?.n ?? 0);
  }
  const undelivered = Object.fromEntries(Object.entries(await undeliveredEvents(pool, 0)).map(([k, v]) => [k, v.count]));
  let dueContracts = 0;
  if (tables.has('invoicing.invoices')) {
    const [row] = await queryEventually<{ n: string }>(
      pool,
      `select count(*) as n from invoicing.invoices where recurring_enabled and recurring_status = 'active'
         and invoicestatus <> 'cancelled' and recurring_next_run_date <= (now() at time zone 'utc')::date`,
    );
    dueContracts = Number(row?.n ?? 0);
  }
  let webhooksPending = 0;
  if (tables.has('webhooks.deliveries')) {
    const [row] = await queryEventually<{ n: string }>(pool, `select count(*) as n from webhooks.deliveries where status = 'pending'`);
    webhooksPending = Number(row?.n ?? 0);
  }
  const stats = await broker.statsEventually(30_000, [...broker.queues('events'), ...broker.queues('retry'), ...broker.queues('dead')]);
  const queued = Object.fromEntries(stats.filter((s) => broker.kindOf(s.queue) !== 'dead').map((s) => [s.queue, s.messages]));
  return { unpublished, undelivered, dueContracts, webhooksPending, queued };
}

/**
 * Polls until the system has nothing left to do (outboxes published, every event in the inboxes
 * of the subscribers owed it, no due recurring child, event and retry queues empty), or until nothing has
 * moved for `stallMs` while only undeliverable work is left, or the time is up.
 */
export async function waitDrained(
  pool: pg.Pool,
  broker: BrokerInspector,
  timeoutMs: number,
  stallMs = 8000,
): Promise<{ drained: boolean; ms: number; state: WorkState }> {
  const started = Date.now();
  let last = '';
  let lastChange = Date.now();
  for (;;) {
    const state = await workState(pool, broker);
    if (isIdle(state)) return { drained: true, ms: Date.now() - started, state };
    const sig = JSON.stringify(state);
    if (sig !== last) {
      last = sig;
      lastChange = Date.now();
    }
    const timedOut = Date.now() - started > timeoutMs;
    // Undelivered events with nothing queued, unpublished or due can only be dead letters: stop waiting.
    const onlyLost = sum(state.unpublished) === 0 && sum(state.queued) === 0 && state.dueContracts === 0 && state.webhooksPending === 0;
    if (timedOut || (onlyLost && Date.now() - lastChange > stallMs)) return { drained: false, ms: Date.now() - started, state };
    await new Promise((r) => setTimeout(r, 500));
  }
}
