import type * as Amqp from 'amqplib';
import { connectToAny, deleteTopology } from '@bo/runtime';
import { serviceDefinitions, systemTopology } from '@bo/launcher';

export interface QueueStat {
  queue: string;
  /** Ready messages (not those a consumer holds unacknowledged). */
  messages: number;
  consumers: number;
  /** False when the queue does not exist (yet). */
  exists: boolean;
}

export type QueueKind = 'rpc' | 'events' | 'retry' | 'dead';

/**
 * Looks at one run's queues on the real broker (not through the proxy), by AMQP `checkQueue`, so
 * no management plugin is needed. One connection, reopened when the broker restarted.
 */
export class BrokerInspector {
  private conn?: Amqp.ChannelModel;
  readonly topology: { queues: string[]; exchanges: string[] };

  /** `retryBaseMs` is the processes' EVENT_RETRY_BASE_MS: the retry queues are named by their delays. */
  constructor(
    private readonly url: string,
    readonly prefix: string,
    retryBaseMs: number,
  ) {
    this.topology = systemTopology(prefix, retryBaseMs);
  }

  kindOf(queue: string): QueueKind {
    if (queue.startsWith(`${this.prefix}.rpc.`)) return 'rpc';
    if (queue.endsWith('.dead')) return 'dead';
    if (/\.retry(\.|$)/.test(queue.slice(this.prefix.length))) return 'retry';
    return 'events';
  }

  queues(kind?: QueueKind): string[] {
    return this.topology.queues.filter((q) => kind === undefined || this.kindOf(q) === kind);
  }

  /** The service whose instances consume a queue (rpc and event queues). */
  consumerServiceOf(queue: string): string | undefined {
    if (this.kindOf(queue) === 'rpc') return queue.slice(`${this.prefix}.rpc.`.length);
    if (this.kindOf(queue) !== 'events') return undefined;
    const name = queue.slice(this.prefix.length + 1);
    for (const def of Object.values(serviceDefinitions)) {
      if ((def.subscriptions ?? []).some((s) => s.name === name)) return def.name;
    }
    return undefined;
  }

  private async connection(): Promise<Amqp.ChannelModel> {
    if (this.conn) return this.conn;
    // The first node that answers, of one or of a cluster's list.
    const conn = await connectToAny(this.url);
    conn.on('error', () => undefined);
    conn.on('close', () => {
      if (this.conn === conn) this.conn = undefined;
    });
    this.conn = conn;
    return conn;
  }

  async stats(queues: readonly string[] = this.topology.queues): Promise<QueueStat[]> {
    const conn = await this.connection();
    const out: QueueStat[] = [];
    let ch = await conn.createChannel();
    ch.on('error', () => undefined);
    for (const queue of queues) {
      try {
        const q = await ch.checkQueue(queue);
        out.push({ queue, messages: q.messageCount, consumers: q.consumerCount, exists: true });
      } catch {
        // A missing queue closes the channel (404): note it and carry on with a fresh one.
        out.push({ queue, messages: 0, consumers: 0, exists: false });
        ch = await conn.createChannel();
        ch.on('error', () => undefined);
      }
    }
    await ch.close().catch(() => undefined);
    return out;
  }

  /** Tries until the broker answers (it may be restarting). */
  async statsEventually(timeoutMs: number, queues?: readonly string[]): Promise<QueueStat[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await this.stats(queues);
      } catch (err) {
        this.conn = undefined;
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  async close(): Promise<void> {
    const conn = this.conn;
    this.conn = undefined;
    await conn?.close().catch(() => undefined);
  }

  async destroyTopology(): Promise<void> {
    await deleteTopology(this.url, this.topology);
  }
}
