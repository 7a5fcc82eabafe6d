import * as amqplib from 'amqplib';

export interface DivertedEvents {
  /** Events of the type published since the diversion, held away from the consumer. */
  held(): Promise<number>;
  /** Hands what was held to the consumer's queue, late, and routes the type to it again; answers how many. */
  release(): Promise<number>;
}

/**
 * Stops one consumer hearing one event type on a real broker, as a lagging or stopped consumer
 * would, without losing the events: the type is routed to a holding queue instead of the consumer's
 * (`<prefix>.<consumer>`) until `release`. The holding queue is bound first, so no event published
 * meanwhile is dropped.
 */
export async function divertEvents(opts: {
  amqpUrl: string;
  prefix: string;
  consumer: string;
  eventType: string;
}): Promise<DivertedEvents> {
  const exchange = `${opts.prefix}.events`;
  const main = `${opts.prefix}.${opts.consumer}`;
  const holding = `${main}.diverted`;
  const conn = await amqplib.connect(opts.amqpUrl);
  const ch = await conn.createConfirmChannel();
  await ch.assertQueue(holding, { durable: false });
  await ch.bindQueue(holding, exchange, opts.eventType);
  await ch.unbindQueue(main, exchange, opts.eventType);
  return {
    async held() {
      return (await ch.checkQueue(holding)).messageCount;
    },
    async release() {
      let moved = 0;
      for (let msg = await ch.get(holding); msg; msg = await ch.get(holding)) {
        ch.sendToQueue(main, msg.content, { ...msg.properties, headers: msg.properties.headers ?? {} });
        await ch.waitForConfirms();
        ch.ack(msg);
        moved++;
      }
      await ch.bindQueue(main, exchange, opts.eventType);
      await ch.deleteQueue(holding);
      await conn.close();
      return moved;
    },
  };
}
