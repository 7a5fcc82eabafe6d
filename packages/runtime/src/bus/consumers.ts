import type * as amqp from 'amqplib';
import { withTimeout } from './connection';

/**
 * The consumers a bus started (RPC and events alike) and the messages they are still handling, so a
 * stop can cancel the one and wait for the other.
 */
export class Consumers {
  private list: Array<{ channel: amqp.Channel; tag: string }> = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private active = true;

  /** Consumes the queue on the channel, unless the bus stopped consuming; each message's work is tracked. */
  async consume(channel: amqp.Channel, queue: string, handle: (msg: amqp.ConsumeMessage) => Promise<void>): Promise<void> {
    if (!this.active) return;
    const { consumerTag } = await channel.consume(queue, (msg) => {
      if (msg) this.track(handle(msg));
    });
    const entry = { channel, tag: consumerTag };
    this.list.push(entry);
    // A channel gone with its connection has no consumer left to cancel; the reconnect starts a new one.
    channel.once('close', () => (this.list = this.list.filter((e) => e !== entry)));
  }

  private track(work: Promise<unknown>): void {
    this.inFlight.add(work);
    void work.catch(() => undefined).finally(() => this.inFlight.delete(work));
  }

  async stop(): Promise<void> {
    this.active = false;
    // A channel on a dead connection never answers a cancel; do not wait for it.
    await Promise.all(this.list.map((c) => withTimeout(c.channel.cancel(c.tag), 2000).catch(() => undefined)));
    this.list = [];
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}
