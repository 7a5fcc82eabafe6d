import { integrations } from '@bo/contracts';
import { formatDateTime } from '@bo/kernel';
import {
  extractContext,
  inSpan,
  recordEvent,
  SpanKind,
  startSpan,
  traceContextFrom,
  type BackgroundTask,
  type Knex,
  type Logger,
  type OutboxRelay,
} from '@bo/runtime';
import { nextAttemptDelay } from '../domain/retry';
import { webhookHeaders } from '../domain/signature';
import type { EndpointRow } from '../endpoint/endpoint.record';
import { secretBox } from '../key/secrets';
import type { WebhookSettings } from '../settings';
import type { DeliveryRow } from './delivery.record';
import { countAttempt, watchBacklog, type AttemptOutcome } from './metrics';
import { postWebhook, type Attempt } from './sender';
import { resolveTarget, settingsResolver, type Resolver } from './target';
import { onWake } from './wake';

/** How long past its timeout an attempt's lease lasts: a process killed mid-attempt lets the delivery go then. */
const LEASE_MARGIN_MS = 20_000;

/** The shortest sleep between passes: a row another instance is claiming this instant is seen leased at the next. */
const MIN_SLEEP_MS = 10;

type Claimed = DeliveryRow & { lease_id: string };

/**
 * The endpoints that may take an attempt now (enabled, below WEBHOOKS_PER_ENDPOINT attempts in
 * flight, their organization below WEBHOOKS_PER_ORGANIZATION), counting the attempts every instance
 * holds (leased rows), with the room each has left. Bindings: per endpoint, per endpoint, per organization.
 */
const OPEN_ENDPOINTS = `busy as (
    select endpoint_id, org_id, count(*)::int as n from deliveries
     where leased_until is not null and leased_until > now() and status = 'pending'
     group by endpoint_id, org_id
  ), org_busy as (
    select org_id, sum(n)::int as n from busy group by org_id
  ), open as (
    select e.id, e.org_id, ?::int - coalesce(b.n, 0) as room, coalesce(o.n, 0) as org_n
      from endpoints e
      left join busy b on b.endpoint_id = e.id
      left join org_busy o on o.org_id = e.org_id
     where e.status = 'enabled' and e.deleted_at is null and coalesce(b.n, 0) < ? and coalesce(o.n, 0) < ?
  )`;

/**
 * Sends due deliveries, each attempt on its own, at most WEBHOOKS_MAX_IN_FLIGHT at once,
 * WEBHOOKS_PER_ENDPOINT to one endpoint and WEBHOOKS_PER_ORGANIZATION to one organization's, so a
 * receiver that hangs holds its own slots only, and one organization's receivers leave the others theirs.
 *
 * A delivery is claimed by a lease: one statement takes due rows with FOR UPDATE SKIP LOCKED and
 * moves their next attempt to the lease's end, so instances running at once never take the same
 * row, and a process killed mid-attempt leaves a row that falls due again when its lease ends (sent
 * again: at least once, with the same webhook-id). The outcome is written only under the lease it
 * was claimed with, so a redelivery or a deletion meanwhile wins.
 *
 * Between passes it sleeps until the next row it could claim falls due (rows of disabled endpoints,
 * and of endpoints or organizations at their cap, are not rows it could claim), or WEBHOOKS_POLL_MS
 * (what other instances free or queue), whichever is first; with every slot of the process taken it
 * sleeps until one frees. New deliveries and freed slots of this process wake it at once: a write's
 * once its transaction commits, a one-statement write's once its statement has (its `afterCommit`).
 */
export class Dispatcher implements BackgroundTask {
  private readonly inFlight = new Map<number, Promise<void>>();
  private stopped = true;
  private passing = false;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private unwatch: (() => void)[] = [];

  constructor(
    private readonly db: Knex,
    private readonly log: Logger,
    private readonly relay: Pick<OutboxRelay, 'kick'>,
    private readonly settings: WebhookSettings,
    private readonly resolve: Resolver = settingsResolver(settings),
  ) {}

  start(): void {
    this.stopped = false;
    this.unwatch = [onWake(() => this.wake()), watchBacklog(this.db)];
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch.forEach((u) => u());
    clearTimeout(this.timer);
    await this.running;
    // Attempts in flight end by their timeout at the latest; their outcome is recorded.
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /** Looks for due deliveries now (new work, a slot freed); a pass already running looks again after it. */
  wake(): void {
    if (this.stopped) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    this.passing = true;
    clearTimeout(this.timer);
    this.running = this.pass()
      .then(
        (sleepMs) => this.sleep(sleepMs),
        (err: unknown) => {
          this.log.error({ err }, 'webhook dispatch pass failed; will retry');
          this.sleep(this.settings.WEBHOOKS_POLL_MS);
        },
      )
      .finally(() => {
        this.passing = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Wakes after `ms`; none: only a finishing attempt (or new work) wakes it. */
  private sleep(ms: number | undefined): void {
    if (this.stopped || ms === undefined) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), ms);
    this.timer.unref();
  }

  /** Claims what it can and starts its attempts; answers how long to sleep before the next pass. */
  private async pass(): Promise<number | undefined> {
    const free = this.settings.WEBHOOKS_MAX_IN_FLIGHT - this.inFlight.size;
    // Every slot taken: the first attempt to end wakes it.
    if (free <= 0) return undefined;
    const claimed = await this.claim(free);
    if (claimed.length) {
      const endpoints = new Map(
        ((await this.db('endpoints').whereIn('id', [...new Set(claimed.map((d) => d.endpoint_id))])) as EndpointRow[]).map((e) => [
          e.id,
          e,
        ]),
      );
      for (const delivery of claimed) {
        const endpoint = endpoints.get(delivery.endpoint_id);
        if (!endpoint) continue;
        const attempt = this.attempt(delivery, endpoint)
          .catch((err: unknown) =>
            this.log.error({ err, delivery_id: delivery.id }, 'webhook attempt failed to record; its lease will end'),
          )
          .finally(() => {
            this.inFlight.delete(delivery.id);
            this.wake();
          });
        this.inFlight.set(delivery.id, attempt);
      }
      // As many as there was room for: more may be due.
      if (claimed.length === free) {
        this.again = true;
        return undefined;
      }
    }
    const due = await this.nextDue();
    const poll = this.settings.WEBHOOKS_POLL_MS;
    return due === undefined ? poll : Math.min(poll, Math.max(MIN_SLEEP_MS, due.getTime() - Date.now()));
  }

  private get capBindings(): number[] {
    const { WEBHOOKS_PER_ENDPOINT: perEndpoint, WEBHOOKS_PER_ORGANIZATION: perOrg } = this.settings;
    return [perEndpoint, perEndpoint, perOrg];
  }

  /**
   * Takes up to `limit` due deliveries, the organizations in turn: each organization's next attempt
   * is ranked by how many it has in flight (its place), and the lowest places go first, so an
   * organization with a backlog, however old, takes a slot only after every other organization with
   * something due took as many. Within an organization its endpoints take turns the same way, and an
   * endpoint's deliveries go oldest due first. Each open endpoint is asked for its room's worth of
   * rows through its index, so a pass reads at most that many rows per endpoint, whatever the backlog.
   */
  private async claim(limit: number): Promise<Claimed[]> {
    const leaseMs = this.settings.WEBHOOKS_TIMEOUT_MS + LEASE_MARGIN_MS;
    const result = await this.db.raw<{ rows: Claimed[] }>(
      `with ${OPEN_ENDPOINTS}, candidates as (
         select d.id, d.next_attempt_at,
                o.org_n + row_number() over (partition by o.org_id order by d.turn, d.next_attempt_at, d.id) as place
           from open o
           cross join lateral (
             select x.id, x.next_attempt_at, row_number() over (order by x.next_attempt_at, x.id) as turn
               from deliveries x
              where x.endpoint_id = o.id and x.status = 'pending' and x.next_attempt_at <= now()
              order by x.next_attempt_at, x.id
              limit o.room) d
       ), chosen as (
         select id from candidates where place <= ? order by place, next_attempt_at, id limit ?
       )
       update deliveries set leased_until = now() + make_interval(secs => ?), next_attempt_at = now() + make_interval(secs => ?),
              lease_id = gen_random_uuid()
        where id in (select d.id from deliveries d where d.id in (select id from chosen)
                       and d.status = 'pending' and d.next_attempt_at <= now() for update skip locked)
       returning *`,
      [...this.capBindings, this.settings.WEBHOOKS_PER_ORGANIZATION, limit, leaseMs / 1000, leaseMs / 1000],
    );
    return result.rows;
  }

  /** When the next row it could claim falls due (a retry, a lease ending): only open endpoints' rows count. */
  private async nextDue(): Promise<Date | undefined> {
    const result = await this.db.raw<{ rows: Array<{ due: Date | null }> }>(
      `with ${OPEN_ENDPOINTS}
       select min(d.next_attempt_at) as due
         from open o
         cross join lateral (
           select x.next_attempt_at from deliveries x
            where x.endpoint_id = o.id and x.status = 'pending'
            order by x.next_attempt_at limit 1) d`,
      this.capBindings,
    );
    return result.rows[0]?.due ?? undefined;
  }

  /** One attempt of one delivery, in a span continuing the event's trace, and its outcome recorded. */
  private async attempt(delivery: Claimed, endpoint: EndpointRow): Promise<void> {
    const parent = extractContext(traceContextFrom(delivery as unknown as Record<string, unknown>));
    const span = startSpan('webhooks', `webhook ${delivery.event_type}`, SpanKind.CLIENT, parent, {
      'webhook.id': delivery.event_id,
      'webhook.endpoint_id': endpoint.id,
      'webhook.attempt': delivery.attempts + 1,
    });
    await inSpan(span, parent, async () => {
      const url = new URL(endpoint.url);
      const target = await resolveTarget(url, this.settings, this.resolve);
      let result: Attempt;
      if (!target.ok) result = { error: `refused: ${target.problem}`, durationMs: 0 };
      else {
        const body = JSON.stringify(delivery.payload);
        const headers = webhookHeaders(this.signingSecrets(endpoint), delivery.event_id, body);
        result = await postWebhook(url, target, body, headers, {
          timeoutMs: this.settings.WEBHOOKS_TIMEOUT_MS,
          maxBytes: this.settings.WEBHOOKS_MAX_RESPONSE_BYTES,
        });
      }
      const outcome = outcomeOf(result);
      if (result.status !== undefined) span.setAttribute('http.response.status_code', result.status);
      span.setAttribute('webhook.outcome', outcome);
      countAttempt(outcome, result.durationMs);
      await this.record(delivery, endpoint, result, outcome);
    });
  }

  /** The secrets that sign now: the current one, and the one before it while the rotation's overlap lasts. */
  private signingSecrets(endpoint: EndpointRow): string[] {
    const box = secretBox(this.settings);
    const secrets = [box.open(endpoint.secret)];
    if (endpoint.previous_secret && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > new Date())
      secrets.push(box.open(endpoint.previous_secret));
    return secrets;
  }

  private async record(delivery: Claimed, endpoint: EndpointRow, result: Attempt, outcome: AttemptOutcome): Promise<void> {
    const now = new Date();
    const failedInARow = outcome === 'delivered' ? 0 : delivery.failed_in_a_row + 1;
    const delay =
      outcome === 'failed' || outcome === 'error' ? nextAttemptDelay(this.settings.WEBHOOKS_RETRY_SCHEDULE_MS, failedInARow) : undefined;
    const status = outcome === 'delivered' ? 'delivered' : delay === undefined ? 'failed' : 'pending';
    let disabled = false;
    await this.db.transaction(async (trx) => {
      // The endpoint before its delivery, the order of the endpoint writes that touch its deliveries
      // (lockEndpoint, then a delete's cascade or a redeliver's update): the other order deadlocks with
      // them. FOR NO KEY UPDATE, so the consumer's inserts (a key share of the endpoint) never wait on it.
      await trx.raw('select 1 from endpoints where id = ? for no key update', [endpoint.id]);
      const updated = await trx('deliveries')
        .where({ id: delivery.id, lease_id: delivery.lease_id })
        .update({
          status,
          attempts: delivery.attempts + 1,
          failed_in_a_row: failedInARow,
          next_attempt_at: delay === undefined ? null : new Date(now.getTime() + delay),
          leased_until: null,
          lease_id: null,
          last_attempt_at: now,
          last_http_status: result.status ?? null,
          last_duration_ms: result.durationMs,
          last_error: result.error?.slice(0, 2000) ?? null,
          delivered_at: outcome === 'delivered' ? now : null,
        });
      // Redelivered (a new lease) or deleted meanwhile: that decides, not this attempt.
      if (updated === 0) return;
      await trx('delivery_attempts').insert({
        delivery_id: delivery.id,
        attempt: delivery.attempts + 1,
        at: now,
        http_status: result.status ?? null,
        duration_ms: result.durationMs,
        error: result.error?.slice(0, 2000) ?? null,
        response_excerpt: result.excerpt ?? null,
      });
      if (outcome === 'delivered') {
        await trx('endpoints').where({ id: endpoint.id }).whereNotNull('failing_since').update({ failing_since: null });
        return;
      }
      const [ep] = (await trx('endpoints')
        .where({ id: endpoint.id })
        .update({ failing_since: trx.raw('coalesce(failing_since, ?)', [now]) })
        .returning('*')) as EndpointRow[];
      if (!ep || ep.status !== 'enabled' || ep.deleted_at) return;
      const failingFor = now.getTime() - (ep.failing_since ?? now).getTime();
      const reason = outcome === 'gone' ? 'gone' : failingFor >= this.settings.WEBHOOKS_DISABLE_AFTER_MS ? 'failing' : undefined;
      if (!reason) return;
      const [off] = (await trx('endpoints')
        .where({ id: ep.id, status: 'enabled' })
        .update({ status: 'disabled', disabled_reason: reason, disabled_at: now, version: ep.version + 1, updated_at: now })
        .returning('*')) as EndpointRow[];
      if (!off) return;
      await recordEvent(trx, integrations.endpointDisabled, off.org_id, {
        endpoint_id: off.id,
        url: off.url,
        reason,
        failing_since: formatDateTime(off.failing_since),
        disabled_at: formatDateTime(now) as string,
        version: off.version,
      });
      disabled = true;
    });
    if (disabled) {
      this.log.warn({ endpoint_id: endpoint.id, outcome }, 'webhook endpoint disabled');
      this.relay.kick();
    }
  }
}

function outcomeOf(result: Attempt): AttemptOutcome {
  if (result.status === undefined) return 'error';
  if (result.status >= 200 && result.status < 300) return 'delivered';
  return result.status === 410 ? 'gone' : 'failed';
}
