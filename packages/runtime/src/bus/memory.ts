import type { EventEnvelope, RpcReply } from '@bo/contracts';
import { BusError } from '../errors';
import type { Logger } from '../logger';
import { DEFAULT_MAX_ATTEMPTS, retryDelayMs } from './backoff';
import {
  parseRawReply,
  toRawReply,
  type Bus,
  type PendingDelivery,
  type RawReply,
  type RequestMeta,
  type RpcServer,
  type Subscription,
} from './types';

/**
 * The in-process transport: same contract as the RabbitMQ one, for the single-process default
 * and fast unit tests. Events are delivered asynchronously with the same retry rules. A
 * subscription with a `store` has each event written there before publish resolves (the outbox
 * forgets it then) and removed once handled or dead-lettered, so first deliveries and retries not
 * made when the process stops are made after the next start, at their due time and with their
 * attempt count. One without a store lives in memory only. A routed subscription (Subscription.routes)
 * gets only the types routed to it at the moment an event is published.
 */
export class MemoryBus implements Bus {
  readonly kind = 'memory' as const;
  private readonly servers = new Map<string, RpcServer>();
  private readonly subscriptions: Subscription[] = [];
  /** The types routed to each routed subscription (Subscription.routes), by name. */
  private readonly routed = new Map<string, Set<string>>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Stored deliveries scheduled or running here, by consumer and event id: none is made twice at once. */
  private readonly scheduled = new Set<string>();
  private consuming = true;
  readonly deadLetters: Array<{ subscription: string; event: EventEnvelope }> = [];

  constructor(private readonly opts: { log: Logger; maxAttempts?: number; retryBaseMs?: number }) {}

  async request(operation: string, payload: unknown, meta: RequestMeta, timeoutMs: number): Promise<RpcReply> {
    return parseRawReply(await this.requestRaw(operation, payload, meta, timeoutMs));
  }

  /**
   * The reply serialized once, as the RabbitMQ transport carries it: the gateway forwards it
   * unparsed, and `request` parses it, so callers see exactly what they would over the wire.
   */
  async requestRaw(operation: string, payload: unknown, meta: RequestMeta, timeoutMs: number): Promise<RawReply> {
    const server = this.servers.get(operation);
    if (!server || !this.consuming) throw new BusError('unroutable', `No service serves ${operation}`);
    // Round-trip through JSON so handlers see exactly what they would over the wire.
    const work = server(operation, JSON.parse(JSON.stringify(payload ?? null)), { ...meta, deadline: Date.now() + timeoutMs });
    this.track(work);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new BusError('timeout', `No reply to ${operation} within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return toRawReply(await Promise.race([work, timeout]));
    } finally {
      clearTimeout(timer);
    }
  }

  serve(_service: string, operations: readonly string[], server: RpcServer): Promise<void> {
    for (const op of operations) this.servers.set(op, server);
    return Promise.resolve();
  }

  async publish(event: EventEnvelope): Promise<void> {
    const copy = JSON.parse(JSON.stringify(event)) as EventEnvelope;
    const matching = this.subscriptions.filter(
      (sub) =>
        sub.events.some((pattern) => topicMatches(pattern, event.type)) && (this.routed.get(sub.name)?.has(event.type) ?? !sub.routes),
    );
    const stored = await Promise.allSettled(
      matching.map(async (sub) => {
        if (!sub.store) return this.schedule(sub, copy, 1);
        // Durable before accepted. Not delivered when pending already: that delivery is under way.
        if (await sub.store.add(copy)) this.resume(sub, { event: copy, attempt: 1, dueAt: Date.now() });
      }),
    );
    // The consumers that did store it get it; the outbox publishes it again for the others, and the
    // ones that have it already find it pending and do nothing.
    const failed = stored.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw new BusError('unavailable', `Event ${event.id} not stored: ${(failed.reason as Error)?.message}`);
  }

  async subscribe(subscription: Subscription): Promise<void> {
    if (subscription.routes) this.routed.set(subscription.name, new Set(checkedRoutes(subscription, subscription.routes)));
    this.subscriptions.push(subscription);
    // What an earlier run left undone resumes at its due time with its attempt count. Read after
    // subscribing, so an event published meanwhile cannot fall between the two; should both this
    // and publish find it, `scheduled` lets only one deliver it.
    for (const delivery of (await subscription.store?.pending()) ?? []) this.resume(subscription, delivery);
  }

  addRoutes(subscription: string, types: readonly string[]): Promise<void> {
    return Promise.resolve().then(() => {
      const routed = this.routesOf(subscription);
      for (const type of checkedRoutes(routed.sub, types)) routed.types.add(type);
    });
  }

  setRoutes(subscription: string, types: readonly string[]): Promise<void> {
    return Promise.resolve().then(() => {
      const routed = this.routesOf(subscription);
      this.routed.set(subscription, new Set(checkedRoutes(routed.sub, types)));
    });
  }

  private routesOf(name: string): { sub: Subscription; types: Set<string> } {
    const sub = this.subscriptions.find((s) => s.name === name);
    const types = this.routed.get(name);
    if (!sub || !types) throw new BusError('unavailable', `${name} is not a routed subscription of this bus (yet)`);
    return { sub, types };
  }

  /** Schedules a stored delivery unless it is scheduled already or the bus stopped (it waits in its store). */
  private resume(sub: Subscription, delivery: PendingDelivery): void {
    const key = deliveryKey(sub, delivery.event);
    if (!this.consuming || this.scheduled.has(key)) return;
    this.scheduled.add(key);
    this.schedule(sub, delivery.event, delivery.attempt, Math.max(0, delivery.dueAt - Date.now()));
  }

  private schedule(sub: Subscription, event: EventEnvelope, attempt: number, delayMs = 0): void {
    if (!this.consuming) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.consuming) this.track(this.attempt(sub, event, attempt));
    }, delayMs);
    this.timers.add(timer);
  }

  private async attempt(sub: Subscription, event: EventEnvelope, attempt: number): Promise<void> {
    try {
      await sub.handler(event, { attempt });
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      const max = this.opts.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
      if (attempt >= max) {
        this.opts.log.error({ err, consumer: sub.name, event_id: event.id }, 'event handler failed for the last time');
        this.deadLetters.push({ subscription: sub.name, event });
        await this.record(sub, event, () => sub.store?.dead(event, attempt, error));
        this.scheduled.delete(deliveryKey(sub, event));
        return;
      }
      this.opts.log.warn({ err, consumer: sub.name, event_id: event.id, attempt }, 'event handler failed, will retry');
      const delay = retryDelayMs(attempt, this.opts.retryBaseMs);
      await this.record(sub, event, () => sub.store?.retry(event.id, attempt + 1, Date.now() + delay, error));
      this.schedule(sub, event, attempt + 1, delay);
      return;
    }
    await this.record(sub, event, () => sub.store?.done(event.id));
    this.scheduled.delete(deliveryKey(sub, event));
  }

  /**
   * Writes a delivery's progress to its store. A failure to write changes nothing here: the stored
   * row as it stands is delivered again after the next start (the inbox absorbs a repeat).
   */
  private async record(sub: Subscription, event: EventEnvelope, write: () => Promise<void> | undefined): Promise<void> {
    try {
      await write();
    } catch (err) {
      this.opts.log.warn(
        { err: (err as Error).message, consumer: sub.name, event_id: event.id },
        'could not record the delivery in its store',
      );
    }
  }

  private track(work: Promise<unknown>): void {
    this.inFlight.add(work);
    void work.catch(() => undefined).finally(() => this.inFlight.delete(work));
  }

  async stopConsuming(): Promise<void> {
    this.consuming = false;
    // Deliveries still waiting stay in their subscription's store, if it has one, for the next
    // start; without a store they are dropped. Nothing is scheduled from here on.
    this.timers.forEach(clearTimeout);
    this.timers.clear();
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    this.scheduled.clear();
  }

  async close(): Promise<void> {
    await this.stopConsuming();
  }
}

/** AMQP topic matching: `*` is one word, `#` zero or more. */
export function topicMatches(pattern: string, key: string): boolean {
  const p = pattern.split('.');
  const k = key.split('.');
  const match = (i: number, j: number): boolean => {
    if (i === p.length) return j === k.length;
    if (p[i] === '#') return match(i + 1, j) || (j < k.length && match(i, j + 1));
    return j < k.length && (p[i] === '*' || p[i] === k[j]) && match(i + 1, j + 1);
  };
  return match(0, 0);
}

/** Only exact types among the subscription's events, as on RabbitMQ. */
function checkedRoutes(sub: Subscription, types: readonly string[]): readonly string[] {
  const unknown = types.filter((t) => !sub.events.includes(t));
  if (unknown.length) throw new Error(`${sub.name} does not take ${unknown.join(', ')}`);
  return types;
}

function deliveryKey(sub: Subscription, event: EventEnvelope): string {
  return `${sub.name}\n${event.id}`;
}
