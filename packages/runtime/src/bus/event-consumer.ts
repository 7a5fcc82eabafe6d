import type * as amqp from 'amqplib';
import type { EventEnvelope } from '@bo/contracts';
import type { Logger } from '../logger';
import { traceContextFrom } from '../observability/tracing';
import { retryDelayMs } from './backoff';
import { ChannelAcks } from './acks';
import type { AmqpConnection } from './connection';
import type { Consumers } from './consumers';
import type { EventPublisher } from './event-publisher';
import { queueDeclaration, type ConsumerQueues, type QueueType } from './topology';
import { BusError } from '../errors';
import type { Subscription } from './types';

/**
 * The event types routed to a routed subscription (Subscription.routes) through this bus, and the
 * channel its queue is bound on. Bindings are durable: a reconnect binds these again (for a queue the
 * broker lost) and unbinds nothing, since another instance may have bound what this one never saw.
 */
export class ConsumerRoutes {
  types: Set<string>;
  channel?: amqp.Channel;

  constructor(
    readonly sub: Subscription,
    private readonly queue: string,
    private readonly exchange: string,
  ) {
    this.types = new Set(this.checked(sub.routes ?? []));
  }

  async add(types: readonly string[]): Promise<void> {
    // Kept before binding: a reconnect meanwhile binds it too.
    for (const type of this.checked(types)) this.types.add(type);
    await this.onChannel(async (ch) => {
      for (const type of types) await ch.bindQueue(this.queue, this.exchange, type);
    });
  }

  async set(types: readonly string[]): Promise<void> {
    const routed = new Set(this.checked(types));
    const before = this.types;
    this.types = routed;
    await this.onChannel(async (ch) => {
      for (const type of routed) await ch.bindQueue(this.queue, this.exchange, type);
      // Unbinding a type not bound is no error in RabbitMQ.
      for (const type of new Set([...this.sub.events, ...before])) {
        if (!routed.has(type)) await ch.unbindQueue(this.queue, this.exchange, type);
      }
    });
  }

  /** Binds every routed type on a fresh consumer channel (after each (re)connect). */
  async bind(ch: amqp.Channel): Promise<void> {
    this.channel = ch;
    for (const type of [...this.types]) await ch.bindQueue(this.queue, this.exchange, type);
  }

  private async onChannel(work: (ch: amqp.Channel) => Promise<void>): Promise<void> {
    const ch = this.channel;
    if (!ch) throw new BusError('unavailable', `RabbitMQ is not connected: cannot route events to ${this.sub.name}`);
    try {
      await work(ch);
    } catch (err) {
      throw new BusError('unavailable', `Could not route events to ${this.sub.name}: ${(err as Error).message}`);
    }
  }

  /** Only exact types among the subscription's events: unrouting the others then unbinds all. */
  private checked(types: readonly string[]): readonly string[] {
    const unknown = types.filter((t) => !this.sub.events.includes(t));
    if (unknown.length) throw new Error(`${this.sub.name} does not take ${unknown.join(', ')}`);
    return types;
  }
}

export interface EventConsumerOptions {
  queues: ConsumerQueues;
  exchange: string;
  prefetch: number;
  maxAttempts: number;
  retryBaseMs: number;
  queueType: QueueType;
  log: Logger;
}

/**
 * A durable event consumer: its queue bound to each event type it takes (a routed one: to those
 * routed to it, see ConsumerRoutes), a retry queue per back-off
 * delay and a dead-letter queue. A failed message is copied to the retry tier of its next delay
 * (or, after the last attempt, to the dead letters) and only then acked, so it is never lost.
 */
export async function consumeEvents(
  connection: AmqpConnection,
  consumers: Consumers,
  publisher: EventPublisher,
  opts: EventConsumerOptions,
  sub: Subscription,
  routes?: ConsumerRoutes,
): Promise<void> {
  const { queues } = opts;
  await connection.register(async () => {
    const ch = await connection.channel();
    const type = opts.queueType;
    await ch.assertQueue(queues.main, queueDeclaration(type, { role: 'main', dead: queues.dead }));
    for (const tier of queues.retries) {
      await ch.assertQueue(tier.queue, queueDeclaration(type, { role: 'retry', delayMs: tier.delayMs, main: queues.main }));
    }
    await ch.assertQueue(queues.dead, queueDeclaration(type, { role: 'dead' }));
    [queues.main, ...queues.retries.map((t) => t.queue), queues.dead].forEach((q) => connection.declared.queues.add(q));
    if (routes) await routes.bind(ch);
    else for (const type of sub.events) await ch.bindQueue(queues.main, opts.exchange, type);
    await ch.prefetch(opts.prefetch);
    const acks = new ChannelAcks(ch);
    await consumers.consume(ch, queues.main, (msg) => handleEvent(acks, msg, sub, publisher, opts));
  });
}

async function handleEvent(
  acks: ChannelAcks,
  msg: amqp.ConsumeMessage,
  sub: Subscription,
  publisher: EventPublisher,
  opts: EventConsumerOptions,
): Promise<void> {
  const { queues, log } = opts;
  acks.received(msg);
  const attempt = Number(msg.properties.headers?.['x-attempt'] ?? 1);
  let event: EventEnvelope;
  try {
    event = JSON.parse(msg.content.toString()) as EventEnvelope;
  } catch {
    log.error({ consumer: sub.name }, 'unparseable event, dead-lettering');
    await park(acks, msg, publisher, queues.dead, attempt);
    return;
  }
  try {
    await sub.handler(event, { attempt, trace: traceContextFrom(msg.properties.headers) });
    await acks.ack(msg);
  } catch (err) {
    const dead = attempt >= opts.maxAttempts;
    log[dead ? 'error' : 'warn'](
      { err, consumer: sub.name, event_id: event.id, type: event.type, attempt },
      dead ? 'event handler failed for the last time, dead-lettering' : 'event handler failed, will retry',
    );
    await park(acks, msg, publisher, dead ? queues.dead : retryQueue(queues, retryDelayMs(attempt, opts.retryBaseMs)), attempt + 1);
  }
}

/** The tier whose delay is this one; every delay the back-off gives has one. */
function retryQueue(queues: ConsumerQueues, delayMs: number): string {
  const tier = queues.retries.find((t) => t.delayMs === delayMs) ?? queues.retries[queues.retries.length - 1]!;
  return tier.queue;
}

/** Copies the message to a retry tier or the dead letters with its next attempt number, then acks it. */
async function park(acks: ChannelAcks, msg: amqp.ConsumeMessage, publisher: EventPublisher, queue: string, attempt: number): Promise<void> {
  try {
    await publisher.sendToQueue(queue, msg.content, {
      ...msg.properties,
      headers: { ...(msg.properties.headers ?? {}), 'x-attempt': attempt },
      // The tier's queue-level TTL is the delay; a per-message one would only get in its way.
      expiration: undefined,
      persistent: true,
    });
  } catch {
    // Could not park it: give it back so the broker redelivers it.
    acks.nack(msg);
    return;
  }
  await acks.ack(msg);
}
