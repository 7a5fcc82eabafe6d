import * as amqp from 'amqplib';
import { BusError } from '../errors';
import type { Logger } from '../logger';
import { coalesceWrites } from './coalesced-writes';
import { eventsExchangeName, rpcExchangeName } from './topology';

export interface ConnectionOptions {
  url: string;
  prefix: string;
  log: Logger;
  /** How long the first connection may take before start-up fails (the broker may still be booting). */
  connectTimeoutMs?: number;
}

/** Declares a queue and starts its consumer on a fresh connection; run again after every reconnect. */
export type Registration = () => Promise<void>;

/**
 * One AMQP connection per bus with Nagle off and heartbeats. On loss it reconnects with back-off,
 * re-declares the exchanges and runs every registration again, which re-declares the queues and
 * restores the consumers.
 */
export class AmqpConnection {
  private conn?: amqp.ChannelModel;
  private confirm?: amqp.ConfirmChannel;
  private readonly registrations: Registration[] = [];
  private closing = false;
  private connecting?: Promise<void>;
  private wakeUp?: () => void;
  /** Every queue and exchange declared through this connection, for removing them in tests. */
  readonly declared = { queues: new Set<string>(), exchanges: new Set<string>() };

  constructor(private readonly opts: ConnectionOptions) {}

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
    const conn = await amqp.connect(withHeartbeat(this.opts.url), {
      noDelay: true,
      clientProperties: { connection_name: this.opts.prefix },
    });
    if (!coalesceWrites(conn)) this.opts.log.warn('amqplib internals changed: each frame set is written on its own');
    conn.on('error', (err: Error) => this.opts.log.warn({ err: err.message }, 'RabbitMQ connection error'));
    conn.on('close', () => this.onConnectionLost(conn));
    try {
      // A reconnect that ends after close() must not leave a connection open behind it.
      if (this.closing) throw new BusError('unavailable', 'bus closed');
      const confirm = await conn.createConfirmChannel();
      this.watchChannel(confirm, conn);
      const rpc = rpcExchangeName(this.opts.prefix);
      const events = eventsExchangeName(this.opts.prefix);
      await confirm.assertExchange(rpc, 'direct', { durable: true });
      await confirm.assertExchange(events, 'topic', { durable: true });
      this.declared.exchanges.add(rpc).add(events);
      this.conn = conn;
      this.confirm = confirm;
      // The ones registered from here on run at once (the connection is set), so none runs twice.
      for (const register of [...this.registrations]) await register();
    } catch (err) {
      // A half set-up connection is dropped (its close is then no loss to react to); the caller retries.
      if (this.conn === conn) this.conn = this.confirm = undefined;
      await conn.close().catch(() => undefined);
      throw err;
    }
  }

  /** A channel closed by an error poisons the connection's state; start over on a fresh one. */
  watchChannel(channel: amqp.Channel, conn: amqp.ChannelModel): void {
    channel.on('error', (err: Error) => this.opts.log.warn({ err: err.message }, 'RabbitMQ channel error'));
    channel.on('close', () => {
      if (!this.closing) conn.close().catch(() => undefined);
    });
  }

  private onConnectionLost(conn: amqp.ChannelModel): void {
    if (this.conn !== conn) return;
    this.conn = this.confirm = undefined;
    if (this.closing) return;
    this.opts.log.warn('RabbitMQ connection lost, reconnecting');
    this.connecting ??= this.reconnect().finally(() => (this.connecting = undefined));
  }

  private async reconnect(): Promise<void> {
    let delay = 200;
    while (!this.closing) {
      await this.pause(delay);
      if (this.closing) return;
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

  /** A fresh channel on the current connection, watched like every other. */
  async channel(): Promise<amqp.Channel> {
    const conn = this.conn;
    if (!conn) throw new BusError('unavailable', 'RabbitMQ is not connected');
    const channel = await conn.createChannel();
    this.watchChannel(channel, conn);
    return channel;
  }

  /** The connection's confirm channel, on which events are published. */
  confirmChannel(): amqp.ConfirmChannel {
    if (!this.confirm) throw new BusError('unavailable', 'RabbitMQ is not connected');
    return this.confirm;
  }

  /** Runs the registration now if connected, and again after every reconnect. */
  async register(registration: Registration): Promise<void> {
    this.registrations.push(registration);
    if (this.conn) await registration();
  }

  /** A wait between reconnect attempts that close() cuts short, so a closed bus holds no timer. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    this.wakeUp?.();
    if (this.connecting) await withTimeout(this.connecting, 2000).catch(() => undefined);
    if (this.conn) await withTimeout(this.conn.close(), 2000).catch(() => undefined);
    this.conn = this.confirm = undefined;
  }
}

/** Acks and replies on a channel that died with its connection fail; the broker redelivers instead. */
export function safely(fn: () => void): void {
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

export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
