import { randomUUID } from 'node:crypto';
import * as amqp from 'amqplib';
import type { EventEnvelope, RpcReply } from '@bo/contracts';
import { BusError } from '../errors';
import type { Logger } from '../logger';
import { parseRawReply, toRawReply, type Bus, type RawReply, type RequestMeta, type RpcServer, type Subscription } from './types';

export interface AmqpBusOptions {
  url: string;
  prefix: string;
  log: Logger;
  rpcPrefetch?: number;
  eventPrefetch?: number;
  maxAttempts?: number;
  retryBaseMs?: number;
  /** How long the first connection may take before start-up fails (the broker may still be booting). */
  connectTimeoutMs?: number;
}

const REPLY_TO = 'amq.rabbitmq.reply-to';

interface Pending {
  resolve(reply: RawReply): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

interface Consumer {
  channel: amqp.Channel;
  tag: string;
}

/**
 * RabbitMQ transport. One connection per process with Nagle off; RPC over direct reply-to with a
 * per-message expiration equal to the caller's timeout; events on a topic exchange through a
 * confirm channel; durable event queues with a retry queue (back-off by per-message TTL) and a
 * dead-letter queue. On connection loss it reconnects with back-off, re-declares its topology and
 * restores its consumers.
 */
/** The names a system with this prefix declares, for removing a whole run's topology. */
export function topologyNames(prefix: string, services: readonly string[], subscriptions: readonly string[]) {
  return {
    exchanges: [`${prefix}.rpc`, `${prefix}.events`],
    queues: [
      ...services.map((s) => `${prefix}.rpc.${s}`),
      ...subscriptions.flatMap((name) => [`${prefix}.${name}`, `${prefix}.${name}.retry`, `${prefix}.${name}.dead`]),
    ],
  };
}

/** Deletes the given queues and exchanges (test and benchmark clean-up). */
export async function deleteTopology(url: string, names: { queues: readonly string[]; exchanges: readonly string[] }): Promise<void> {
  const conn = await amqp.connect(url);
  try {
    const ch = await conn.createChannel();
    for (const q of names.queues) await ch.deleteQueue(q).catch(() => undefined);
    for (const e of names.exchanges) await ch.deleteExchange(e).catch(() => undefined);
  } finally {
    await conn.close().catch(() => undefined);
  }
}

export class AmqpBus implements Bus {
  readonly kind = 'amqp' as const;
  private conn?: amqp.ChannelModel;
  private confirm?: amqp.ConfirmChannel;
  private rpcClient?: Promise<amqp.Channel>;
  private readonly pending = new Map<string, Pending>();
  private readonly registrations: Array<() => Promise<void>> = [];
  private consumers: Consumer[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private consuming = true;
  private closing = false;
  private connecting?: Promise<void>;
  private readonly declared = { queues: new Set<string>(), exchanges: new Set<string>() };

  constructor(private readonly opts: AmqpBusOptions) {}

  get rpcExchange(): string {
    return `${this.opts.prefix}.rpc`;
  }
  get eventsExchange(): string {
    return `${this.opts.prefix}.events`;
  }

  async connect(): Promise<void> {
    const deadline = Date.now() + (this.opts.connectTimeoutMs ?? 30_000);
    let delay = 200;
    for (;;) {
      try {
        await this.open();
        return;
      } catch (err) {
        if (Date.now() + delay > deadline) throw new BusError('unavailable', `RabbitMQ unreachable: ${(err as Error).message}`);
        this.opts.log.warn({ err: (err as Error).message, delay }, 'RabbitMQ not reachable yet, retrying');
        await sleep(delay);
        delay = Math.min(delay * 2, 5000);
      }
    }
  }

  private async open(): Promise<void> {
    const conn = await amqp.connect(withHeartbeat(this.opts.url), { noDelay: true, clientProperties: { connection_name: this.opts.prefix } });
    conn.on('error', (err: Error) => this.opts.log.warn({ err: err.message }, 'RabbitMQ connection error'));
    conn.on('close', () => this.onConnectionLost(conn));
    this.conn = conn;
    this.confirm = await conn.createConfirmChannel();
    this.watchChannel(this.confirm);
    await this.confirm.assertExchange(this.rpcExchange, 'direct', { durable: true });
    await this.confirm.assertExchange(this.eventsExchange, 'topic', { durable: true });
    this.declared.exchanges.add(this.rpcExchange).add(this.eventsExchange);
    this.consumers = [];
    for (const register of this.registrations) await register();
  }

  /** A channel closed by an error poisons the connection's state; start over on a fresh one. */
  private watchChannel(channel: amqp.Channel): void {
    channel.on('error', (err: Error) => this.opts.log.warn({ err: err.message }, 'RabbitMQ channel error'));
    channel.on('close', () => {
      if (!this.closing && this.conn) this.conn.close().catch(() => undefined);
    });
  }

  private onConnectionLost(conn: amqp.ChannelModel): void {
    if (this.conn !== conn) return;
    this.conn = undefined;
    this.confirm = undefined;
    this.rpcClient = undefined;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new BusError('lost', 'Connection to RabbitMQ lost while waiting for the reply'));
      this.pending.delete(id);
    }
    if (this.closing) return;
    this.opts.log.warn('RabbitMQ connection lost, reconnecting');
    this.connecting ??= this.reconnect().finally(() => (this.connecting = undefined));
  }

  private async reconnect(): Promise<void> {
    let delay = 200;
    while (!this.closing) {
      await sleep(delay);
      try {
        await this.open();
        this.opts.log.info('RabbitMQ connection restored');
        return;
      } catch (err) {
        this.opts.log.warn({ err: (err as Error).message, delay }, 'reconnect failed');
        delay = Math.min(delay * 2, 10_000);
      }
    }
  }

  private requireConnection(): amqp.ChannelModel {
    if (!this.conn) throw new BusError('unavailable', 'RabbitMQ is not connected');
    return this.conn;
  }

  private clientChannel(): Promise<amqp.Channel> {
    this.rpcClient ??= (async () => {
      const ch = await this.requireConnection().createChannel();
      this.watchChannel(ch);
      ch.on('return', (msg: amqp.Message) => {
        const p = this.pending.get(String(msg.properties.correlationId));
        if (!p) return;
        this.pending.delete(String(msg.properties.correlationId));
        clearTimeout(p.timer);
        p.reject(new BusError('unroutable', `No service serves ${msg.fields.routingKey}`));
      });
      await ch.consume(
        REPLY_TO,
        (msg) => {
          if (!msg) return;
          const p = this.pending.get(String(msg.properties.correlationId));
          if (!p) return; // the caller gave up already
          this.pending.delete(String(msg.properties.correlationId));
          clearTimeout(p.timer);
          const headers = msg.properties.headers ?? {};
          p.resolve({ ok: headers['x-ok'] === true, status: Number(headers['x-status']), json: msg.content.toString() });
        },
        { noAck: true },
      );
      return ch;
    })().catch((err) => {
      this.rpcClient = undefined;
      throw err instanceof BusError ? err : new BusError('unavailable', (err as Error).message);
    });
    return this.rpcClient;
  }

  async request(operation: string, payload: unknown, meta: RequestMeta, timeoutMs: number): Promise<RpcReply> {
    return parseRawReply(await this.requestRaw(operation, payload, meta, timeoutMs));
  }

  async requestRaw(operation: string, payload: unknown, meta: RequestMeta, timeoutMs: number): Promise<RawReply> {
    const channel = await this.clientChannel();
    const correlationId = randomUUID();
    return new Promise<RawReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        reject(new BusError('timeout', `No reply to ${operation} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(correlationId, { resolve, reject, timer });
      const fail = (err: unknown) => {
        clearTimeout(timer);
        this.pending.delete(correlationId);
        reject(new BusError('unavailable', `Could not send ${operation}: ${(err as Error).message}`));
      };
      try {
        this.publishRequest(channel, operation, payload, meta, timeoutMs, correlationId);
      } catch (err) {
        // A channel that closed under us throws here: the request was never sent.
        fail(err);
      }
    });
  }

  private publishRequest(channel: amqp.Channel, operation: string, payload: unknown, meta: RequestMeta, timeoutMs: number, correlationId: string): void {
      channel.publish(this.rpcExchange, operation, Buffer.from(JSON.stringify(payload)), {
        correlationId,
        replyTo: REPLY_TO,
        // A request nobody waits for any more is dropped by the broker, never executed late.
        expiration: String(timeoutMs),
        mandatory: true,
        persistent: false,
        contentType: 'application/json',
        type: operation,
        headers: {
          'x-org-id': meta.orgId,
          'x-user-id': meta.userId,
          'x-request-id': meta.requestId,
          'x-idempotency-key': meta.idempotencyKey,
          'x-operation-key': meta.operationKey,
          'x-deadline': Date.now() + timeoutMs,
        },
      });
  }

  async serve(service: string, operations: readonly string[], server: RpcServer): Promise<void> {
    const queue = `${this.opts.prefix}.rpc.${service}`;
    const register = async () => {
      const ch = await this.requireConnection().createChannel();
      this.watchChannel(ch);
      await ch.assertQueue(queue, { durable: true });
      this.declared.queues.add(queue);
      for (const op of operations) await ch.bindQueue(queue, this.rpcExchange, op);
      await ch.prefetch(this.opts.rpcPrefetch ?? 32);
      if (!this.consuming) return;
      const { consumerTag } = await ch.consume(queue, (msg) => {
        if (msg) this.track(this.handleRpc(ch, msg, server));
      });
      this.consumers.push({ channel: ch, tag: consumerTag });
    };
    this.registrations.push(register);
    if (this.conn) await register();
  }

  private async handleRpc(ch: amqp.Channel, msg: amqp.ConsumeMessage, server: RpcServer): Promise<void> {
    const headers = msg.properties.headers ?? {};
    const deadline = Number(headers['x-deadline'] ?? 0);
    if (deadline && Date.now() > deadline) {
      this.opts.log.warn({ operation: msg.fields.routingKey, request_id: headers['x-request-id'] }, 'dropping expired request');
      safely(() => ch.ack(msg));
      return;
    }
    const meta: RequestMeta = {
      orgId: Number(headers['x-org-id']),
      userId: headers['x-user-id'] === undefined ? undefined : String(headers['x-user-id']),
      requestId: String(headers['x-request-id'] ?? randomUUID()),
      idempotencyKey: headers['x-idempotency-key'] === undefined ? undefined : String(headers['x-idempotency-key']),
      operationKey: headers['x-operation-key'] === undefined ? undefined : String(headers['x-operation-key']),
    };
    let reply: RpcReply;
    try {
      reply = await server(msg.fields.routingKey, JSON.parse(msg.content.toString()), meta);
    } catch (err) {
      this.opts.log.error({ err, request_id: meta.requestId }, 'RPC server failed');
      reply = { ok: false, status: 500, code: 'internal_error', message: `Internal error (request id ${meta.requestId})` };
    }
    safely(() => {
      if (msg.properties.replyTo) {
        // Status travels in headers and the content is the body alone, so the gateway can forward it unparsed.
        const raw = toRawReply(reply);
        ch.sendToQueue(msg.properties.replyTo, Buffer.from(raw.json), {
          correlationId: msg.properties.correlationId,
          contentType: 'application/json',
          headers: { 'x-ok': raw.ok, 'x-status': raw.status },
        });
      }
      ch.ack(msg);
    });
  }

  async publish(event: EventEnvelope): Promise<void> {
    const channel = this.confirm;
    if (!channel) throw new BusError('unavailable', 'RabbitMQ is not connected');
    await new Promise<void>((resolve, reject) => {
      channel.publish(this.eventsExchange, event.type, Buffer.from(JSON.stringify(event)), eventProperties(event, 1), (err) =>
        err ? reject(new BusError('unavailable', `Event ${event.id} not confirmed`)) : resolve(),
      );
    });
  }

  async subscribe(sub: Subscription): Promise<void> {
    const queue = `${this.opts.prefix}.${sub.name}`;
    const retryQueue = `${queue}.retry`;
    const deadQueue = `${queue}.dead`;
    const register = async () => {
      const ch = await this.requireConnection().createChannel();
      this.watchChannel(ch);
      await ch.assertQueue(queue, { durable: true });
      // Retry: messages wait out their per-message TTL here, then dead-letter back to the main queue.
      await ch.assertQueue(retryQueue, { durable: true, deadLetterExchange: '', deadLetterRoutingKey: queue });
      await ch.assertQueue(deadQueue, { durable: true });
      [queue, retryQueue, deadQueue].forEach((q) => this.declared.queues.add(q));
      for (const type of sub.events) await ch.bindQueue(queue, this.eventsExchange, type);
      await ch.prefetch(this.opts.eventPrefetch ?? 16);
      if (!this.consuming) return;
      const { consumerTag } = await ch.consume(queue, (msg) => {
        if (msg) this.track(this.handleEvent(ch, msg, sub, retryQueue, deadQueue));
      });
      this.consumers.push({ channel: ch, tag: consumerTag });
    };
    this.registrations.push(register);
    if (this.conn) await register();
  }

  private async handleEvent(ch: amqp.Channel, msg: amqp.ConsumeMessage, sub: Subscription, retryQueue: string, deadQueue: string): Promise<void> {
    const attempt = Number(msg.properties.headers?.['x-attempt'] ?? 1);
    let event: EventEnvelope;
    try {
      event = JSON.parse(msg.content.toString()) as EventEnvelope;
    } catch {
      this.opts.log.error({ consumer: sub.name }, 'unparseable event, dead-lettering');
      await this.forward(deadQueue, msg, attempt, undefined);
      safely(() => ch.ack(msg));
      return;
    }
    try {
      await sub.handler(event, { attempt });
      safely(() => ch.ack(msg));
    } catch (err) {
      const max = this.opts.maxAttempts ?? 8;
      const dead = attempt >= max;
      this.opts.log[dead ? 'error' : 'warn'](
        { err, consumer: sub.name, event_id: event.id, type: event.type, attempt },
        dead ? 'event handler failed for the last time, dead-lettering' : 'event handler failed, will retry',
      );
      try {
        const delay = Math.min((this.opts.retryBaseMs ?? 1000) * 2 ** (attempt - 1), 300_000);
        await this.forward(dead ? deadQueue : retryQueue, msg, attempt + 1, dead ? undefined : delay);
        safely(() => ch.ack(msg));
      } catch {
        // Could not park it: leave it unacked so the broker redelivers it after a reconnect.
        safely(() => ch.nack(msg, false, true));
      }
    }
  }

  private async forward(queue: string, msg: amqp.ConsumeMessage, attempt: number, delayMs: number | undefined): Promise<void> {
    const channel = this.confirm;
    if (!channel) throw new BusError('unavailable', 'RabbitMQ is not connected');
    await new Promise<void>((resolve, reject) => {
      channel.sendToQueue(
        queue,
        msg.content,
        {
          ...msg.properties,
          headers: { ...(msg.properties.headers ?? {}), 'x-attempt': attempt },
          expiration: delayMs === undefined ? undefined : String(delayMs),
          persistent: true,
        },
        (err) => (err ? reject(err) : resolve()),
      );
    });
  }

  private track(work: Promise<unknown>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  async stopConsuming(): Promise<void> {
    this.consuming = false;
    // A channel on a dead connection never answers a cancel; do not wait for it.
    await Promise.all(this.consumers.map((c) => withTimeout(c.channel.cancel(c.tag), 2000).catch(() => undefined)));
    this.consumers = [];
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  async close(): Promise<void> {
    await this.stopConsuming();
    this.closing = true;
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new BusError('lost', 'bus closed while waiting for the reply'));
    }
    this.pending.clear();
    if (this.conn) await withTimeout(this.conn.close(), 2000).catch(() => undefined);
    this.conn = undefined;
  }

  /**
   * Test helper: removes every queue and exchange this bus declared. A bus sharing another's
   * prefix passes `{ exchanges: false }`, so the others keep working.
   */
  async destroyTopology(opts: { exchanges?: boolean } = {}): Promise<void> {
    await deleteTopology(this.opts.url, {
      queues: [...this.declared.queues],
      exchanges: opts.exchanges === false ? [] : [...this.declared.exchanges],
    });
  }

}

function eventProperties(event: EventEnvelope, attempt: number): amqp.Options.Publish {
  return {
    messageId: event.id,
    type: event.type,
    persistent: true,
    contentType: 'application/json',
    timestamp: Math.floor(Date.now() / 1000),
    headers: { 'x-attempt': attempt, 'x-org-id': event.org_id },
  };
}

/** Acks and replies on a channel that died with its connection fail; the broker redelivers instead. */
function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    /* channel gone */
  }
}

/** Heartbeats let a silently dead TCP connection be noticed within seconds instead of never. */
function withHeartbeat(url: string): string {
  if (/[?&]heartbeat=/.test(url)) return url;
  return `${url}${url.includes('?') ? '&' : '?'}heartbeat=10`;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
