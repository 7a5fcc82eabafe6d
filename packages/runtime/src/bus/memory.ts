import type { EventEnvelope, RpcReply } from '@bo/contracts';
import { BusError } from '../errors';
import type { Logger } from '../logger';
import { toRawReply, type Bus, type RawReply, type RequestMeta, type RpcServer, type Subscription } from './types';

/**
 * The in-process transport: same contract as the RabbitMQ one, for the single-process default
 * and fast unit tests. Events are delivered asynchronously with the same retry rules, but live
 * only in memory (the outbox still holds every event until it was handed over).
 */
export class MemoryBus implements Bus {
  readonly kind = 'memory' as const;
  private readonly servers = new Map<string, RpcServer>();
  private readonly subscriptions: Subscription[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private consuming = true;
  readonly deadLetters: Array<{ subscription: string; event: EventEnvelope }> = [];

  constructor(private readonly opts: { log: Logger; maxAttempts?: number; retryBaseMs?: number }) {}

  async request(operation: string, payload: unknown, meta: RequestMeta, timeoutMs: number): Promise<RpcReply> {
    const server = this.servers.get(operation);
    if (!server || !this.consuming) throw new BusError('unroutable', `No service serves ${operation}`);
    // Round-trip through JSON so handlers see exactly what they would over the wire.
    const work = server(operation, JSON.parse(JSON.stringify(payload ?? null)), meta);
    this.track(work);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new BusError('timeout', `No reply to ${operation} within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return JSON.parse(JSON.stringify(await Promise.race([work, timeout]))) as RpcReply;
    } finally {
      clearTimeout(timer);
    }
  }

  async requestRaw(operation: string, payload: unknown, meta: RequestMeta, timeoutMs: number): Promise<RawReply> {
    return toRawReply(await this.request(operation, payload, meta, timeoutMs));
  }

  async serve(_service: string, operations: readonly string[], server: RpcServer): Promise<void> {
    for (const op of operations) this.servers.set(op, server);
  }

  async publish(event: EventEnvelope): Promise<void> {
    const copy = JSON.parse(JSON.stringify(event)) as EventEnvelope;
    for (const sub of this.subscriptions) {
      if (sub.events.some((pattern) => topicMatches(pattern, event.type))) this.deliver(sub, copy, 1);
    }
  }

  private deliver(sub: Subscription, event: EventEnvelope, attempt: number, delayMs = 0): void {
    const run = () => {
      this.timers.delete(timer);
      if (!this.consuming) return;
      this.track(this.attempt(sub, event, attempt));
    };
    const timer = setTimeout(run, delayMs);
    this.timers.add(timer);
  }

  private async attempt(sub: Subscription, event: EventEnvelope, attempt: number): Promise<void> {
    try {
      await sub.handler(event, { attempt });
    } catch (err) {
      const max = this.opts.maxAttempts ?? 8;
      if (attempt >= max) {
        this.opts.log.error({ err, consumer: sub.name, event_id: event.id }, 'event handler failed for the last time');
        this.deadLetters.push({ subscription: sub.name, event });
        return;
      }
      this.opts.log.warn({ err, consumer: sub.name, event_id: event.id, attempt }, 'event handler failed, will retry');
      this.deliver(sub, event, attempt + 1, Math.min((this.opts.retryBaseMs ?? 1000) * 2 ** (attempt - 1), 300_000));
    }
  }

  async subscribe(subscription: Subscription): Promise<void> {
    this.subscriptions.push(subscription);
  }

  private track(work: Promise<unknown>): void {
    this.inFlight.add(work);
    void work.catch(() => undefined).finally(() => this.inFlight.delete(work));
  }

  async stopConsuming(): Promise<void> {
    this.consuming = false;
    // Retries still waiting are dropped: in-process delivery is best effort once the process stops.
    this.timers.forEach(clearTimeout);
    this.timers.clear();
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
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
