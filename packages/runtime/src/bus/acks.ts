import type * as amqp from 'amqplib';
import { safely } from './connection';

/** The part of a channel acks need. */
export type AckChannel = Pick<amqp.Channel, 'ack' | 'nack'>;

/**
 * The acks of one consumer's channel, coalesced: messages settled in the same turn of the event loop
 * (the events of one inbox batch) are acked by one frame with `multiple`, up to the highest tag below
 * every message still being handled; any settled above such a message are acked one by one. A
 * multiple ack covers every unacked tag up to its own, so it never reaches a message still in
 * flight, and a message being parked counts as in flight until its copy is confirmed.
 */
export class ChannelAcks {
  private readonly handling = new Set<number>();
  private settled: amqp.Message[] = [];
  private flushed?: Promise<void>;

  constructor(private readonly ch: AckChannel) {}

  /** A delivery arrived: until it is settled, no multiple ack may cover it. */
  received(msg: amqp.Message): void {
    this.handling.add(msg.fields.deliveryTag);
  }

  /** Settles it as done; resolves once its ack was handed to the channel. */
  ack(msg: amqp.Message): Promise<void> {
    this.handling.delete(msg.fields.deliveryTag);
    this.settled.push(msg);
    this.flushed ??= new Promise((resolve) =>
      setImmediate(() => {
        this.flushed = undefined;
        this.flush();
        resolve();
      }),
    );
    return this.flushed;
  }

  /** Gives it back to the broker at once (redelivered later). */
  nack(msg: amqp.Message): void {
    this.handling.delete(msg.fields.deliveryTag);
    safely(() => this.ch.nack(msg, false, true));
  }

  private flush(): void {
    const settled = this.settled;
    this.settled = [];
    let lowest = Infinity;
    for (const tag of this.handling) lowest = Math.min(lowest, tag);
    let top: amqp.Message | undefined;
    for (const msg of settled) {
      const tag = msg.fields.deliveryTag;
      if (tag > lowest) safely(() => this.ch.ack(msg));
      else if (!top || tag > top.fields.deliveryTag) top = msg;
    }
    if (top) {
      const last = top;
      safely(() => this.ch.ack(last, true));
    }
  }
}
