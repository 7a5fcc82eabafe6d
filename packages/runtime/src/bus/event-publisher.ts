import type * as amqp from 'amqplib';
import type { EventEnvelope } from '@bo/contracts';
import { BusError } from '../errors';
import type { AmqpConnection } from './connection';
import type { PublishOptions } from './types';

/**
 * Publishes on the connection's confirm channel and resolves only once the broker confirmed: the
 * outbox marks an event sent on that, and a consumer acks a failed message only once its retry copy
 * is safely parked.
 */
export class EventPublisher {
  constructor(
    private readonly connection: AmqpConnection,
    private readonly exchange: string,
  ) {}

  /** An event from the outbox, persistent, routed by its type. */
  async publish(event: EventEnvelope, opts: PublishOptions = {}): Promise<void> {
    const properties: amqp.Options.Publish = {
      messageId: event.id,
      type: event.type,
      persistent: true,
      contentType: 'application/json',
      timestamp: Math.floor(Date.now() / 1000),
      headers: { 'x-attempt': 1, 'x-org-id': event.org_id, traceparent: opts.trace?.traceparent, tracestate: opts.trace?.tracestate },
    };
    await this.confirmed(this.exchange, event.type, Buffer.from(JSON.stringify(event)), properties, `Event ${event.id}`);
  }

  /** A message straight into a queue through the default exchange (a retry tier, the dead letters). */
  async sendToQueue(queue: string, content: Buffer, properties: amqp.Options.Publish): Promise<void> {
    await this.confirmed('', queue, content, properties, `Message for ${queue}`);
  }

  private confirmed(exchange: string, routingKey: string, content: Buffer, properties: amqp.Options.Publish, what: string): Promise<void> {
    const channel = this.connection.confirmChannel();
    return new Promise<void>((resolve, reject) => {
      try {
        channel.publish(exchange, routingKey, content, properties, (err) =>
          err ? reject(new BusError('unavailable', `${what} not confirmed: ${(err as Error).message}`)) : resolve(),
        );
      } catch (err) {
        // A channel that closed under us throws here: nothing was sent.
        reject(new BusError('unavailable', `Could not send ${what}: ${(err as Error).message}`));
      }
    });
  }
}
