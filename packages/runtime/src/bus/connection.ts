import * as amqp from 'amqplib';
import { BusError } from '../errors';
import type { Logger } from '../logger';
import { coalesceWrites } from './coalesced-writes';
import { amqpNodes, redactUrl, roundFrom } from './nodes';
import { eventsExchangeName, rpcExchangeName } from './topology';

export interface ConnectionOptions {
  /** One node's URL, or a comma-separated list of a cluster's nodes (nodes.ts). */
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
 * restores the consumers. Given several nodes, it connects to the first that answers; after a loss
 * it tries the next node first and goes round them all before it waits its back-off.
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
  private readonly nodes: string[];
  /** The node tried first: the one connected to, or the next after it once that connection is lost. */
  private node = 0;

  constructor(private readonly opts: ConnectionOptions) {
    this.nodes = amqpNodes(opts.url);
  }

  /** The node the connection is on (its password left out), or undefined while not connected. */
  get connectedNode(): string | undefined {
    return this.conn ? redactUrl(this.nodes[this.node] as string) : undefined;
  }

  async connect(): Promise<void> {
    const deadline = Date.now() + (this.opts.connectTimeoutMs ?? 30_000);
    let delay = 200;
    for (;;) {
      try {
        await this.openAny();
        return;
      } catch (err) {
        if (Date.now() + delay > deadline) throw new BusError('unavailable', `RabbitMQ unreachable: ${(err as Error).message}`);
        this.opts.log.warn({ err: (err as Error).message, delay }, 'RabbitMQ not reachable yet, retrying');
        await sleep(delay);
        delay = Math.min(delay * 2, 5000);
      }
    }
  }

  /** One round: every node once, from the one to try first; fails with the last node's error. */
  private async openAny(): Promise<void> {
    let failure: unknown = new BusError('unavailable', 'bus closed');
    for (const index of roundFrom(
      this.nodes.map((_, i) => i),
      this.node,
    )) {
      if (this.closing) break;
      try {
        await this.open(this.nodes[index] as string);
        this.node = index;
        return;
      } catch (err) {
        failure = err;
        if (this.nodes.length > 1)
          this.opts.log.warn({ node: redactUrl(this.nodes[index] as string), err: (err as Error).message }, 'RabbitMQ node not reachable');
      }
    }
    throw failure;
  }

  private async open(url: string): Promise<void> {
    const conn = await amqp.connect(withHeartbeat(url), {
      noDelay: true,
      // A node that does not answer at all (a partition) must not hold the round up for minutes.
      timeout: CONNECT_TIMEOUT_MS,
      clientProperties: { connection_name: this.opts.prefix },
    });
    if (!coalesceWrites(conn)) this.opts.log.warn('amqplib internals changed: each frame set is written on its own');
    conn.on('error', (err: Error) => this.opts.log.warn({ err: err.message }, 'RabbitMQ connection error'));
    conn.on('close', () => this.onConnectionLost(conn));
    // A connection lost while it is being set up fails the set-up: a step awaiting the broker on it
    // (a declaration, a consumer) may otherwise never settle, and the reconnect that runs this would
    // wait for ever with no consumer restored (seen in the cluster chaos: a node restarting answered
    // 541 INTERNAL_ERROR mid-registration).
    const lost = new Promise<never>((_, reject) =>
      conn.once('close', () => reject(new BusError('unavailable', 'RabbitMQ connection closed while it was being set up'))),
    );
    lost.catch(() => undefined);
    const settled = <T>(step: Promise<T>): Promise<T> => Promise.race([step, lost]);
    try {
      // A reconnect that ends after close() must not leave a connection open behind it.
      if (this.closing) throw new BusError('unavailable', 'bus closed');
      const confirm = await settled(conn.createConfirmChannel());
      this.watchChannel(confirm, conn);
      const rpc = rpcExchangeName(this.opts.prefix);
      const events = eventsExchangeName(this.opts.prefix);
      await settled(confirm.assertExchange(rpc, 'direct', { durable: true }));
      await settled(confirm.assertExchange(events, 'topic', { durable: true }));
      this.declared.exchanges.add(rpc).add(events);
      this.conn = conn;
      this.confirm = confirm;
      // The ones registered from here on run at once (the connection is set), so none runs twice.
      for (const register of [...this.registrations]) await settled(register());
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
    // The node may be the one that went down: the next one is tried first.
    this.node = (this.node + 1) % this.nodes.length;
    this.opts.log.warn('RabbitMQ connection lost, reconnecting');
    this.connecting ??= this.reconnect().finally(() => (this.connecting = undefined));
  }

  private async reconnect(): Promise<void> {
    let delay = 200;
    while (!this.closing) {
      await this.pause(delay);
      if (this.closing) return;
      try {
        await this.openAny();
        this.opts.log.info({ node: this.connectedNode }, 'RabbitMQ connection restored');
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

/** How long opening the TCP connection to one node may take. */
const CONNECT_TIMEOUT_MS = 5000;

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
