import { z } from 'zod';
import { events } from './catalogue';
import { consumers, publisherOf } from './consumers';
import { eventEnvelopeSchema } from './events';

type Json = Record<string, unknown>;

/** BUS_PREFIX's default: the document names the default exchange and queues, and says the prefix varies. */
const PREFIX = 'bo';
const EXCHANGE = `${PREFIX}.events`;
const AMQP_BINDING = '0.3.0';

/** What a consumer can rely on, said once for the document and every receive operation. */
const DELIVERY = {
  guarantee: 'at-least-once',
  deduplicate_by: 'id',
  ordering: 'none',
  text:
    'Delivery is at least once: an event may arrive more than once (an outbox relay that crashed between ' +
    'publishing and marking, a redelivery after a lost ack), so a consumer records `id` with its effect ' +
    '(its inbox) and ignores an id it has seen. Order is not guaranteed, not even for one record: retries ' +
    'and several relay instances reorder events, so effects must not depend on arrival order.',
};

/** An event's message body: the envelope, with `type` fixed and `data` the event's own schema. */
function payloadOf(type: string, data: z.ZodType): Json {
  const schema = eventEnvelopeSchema.extend({
    id: eventEnvelopeSchema.shape.id.describe('Unique per event, also the AMQP messageId; consumers de-duplicate by it'),
    type: z.literal(type).describe('The event type, also the routing key'),
    occurred_at: eventEnvelopeSchema.shape.occurred_at.describe('When the change committed, YYYY-MM-DDTHH:MM:SS in UTC'),
    org_id: eventEnvelopeSchema.shape.org_id.describe('The organization the change belongs to'),
    data,
  });
  // The default AsyncAPI schema format is a superset of JSON Schema draft-07.
  const json = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', target: 'draft-7' }) as Json;
  delete json['$schema'];
  return json;
}

/**
 * AsyncAPI 3.0 document of the events, generated from the event catalogue and the consumer
 * catalogue: one channel per routing key on the `<prefix>.events` topic exchange, a send operation
 * by the publishing service and a receive operation per consuming service.
 */
export function buildAsyncApi(version = '0.1.0'): Json {
  const channels: Json = {};
  const operations: Json = {};
  const messages: Json = {};
  for (const event of events) {
    const channel = `#/channels/${event.type}`;
    const message = `${channel}/messages/${event.type}`;
    messages[event.type] = {
      name: event.type,
      title: event.type,
      summary: event.summary,
      contentType: 'application/json',
      headers: {
        type: 'object',
        description: 'AMQP application headers',
        properties: {
          'x-org-id': { type: 'integer', description: 'Same as org_id' },
          'x-attempt': { type: 'integer', minimum: 1, description: 'Delivery attempt, raised by each retry' },
          traceparent: { type: 'string', description: 'W3C trace context of the change that caused the event, when traced' },
          tracestate: { type: 'string', description: 'W3C trace state, with traceparent' },
        },
      },
      payload: payloadOf(event.type, event.data),
      bindings: { amqp: { messageType: event.type, bindingVersion: AMQP_BINDING } },
    };
    channels[event.type] = {
      address: event.type,
      title: event.type,
      summary: event.summary,
      description: `Routing key \`${event.type}\` on the topic exchange \`<BUS_PREFIX>.events\` (\`${EXCHANGE}\` by default).`,
      messages: { [event.type]: { $ref: `#/components/messages/${event.type}` } },
      bindings: {
        amqp: {
          is: 'routingKey',
          exchange: { name: EXCHANGE, type: 'topic', durable: true, autoDelete: false, vhost: '/' },
          bindingVersion: AMQP_BINDING,
        },
      },
    };
    const publisher = publisherOf(event.type);
    operations[`${event.type}.publish`] = {
      action: 'send',
      channel: { $ref: channel },
      title: `${publisher} publishes ${event.type}`,
      summary: event.summary,
      description: `Published by the ${publisher} service through its outbox (in the transaction of the change), persistent, with publisher confirms.`,
      tags: [{ name: publisher }],
      messages: [{ $ref: message }],
      bindings: { amqp: { deliveryMode: 2, mandatory: false, timestamp: true, bindingVersion: AMQP_BINDING } },
    };
    for (const consumer of consumers.filter((c) => c.events.includes(event.type))) {
      operations[`${consumer.name}.receive.${event.type}`] = {
        action: 'receive',
        channel: { $ref: channel },
        title: `${consumer.name} receives ${event.type}`,
        summary: consumer.summary,
        description:
          `Consumed by the ${consumer.service} service from its durable queue \`<BUS_PREFIX>.${consumer.name}\`, bound by this routing key. ` +
          `A failed delivery waits in the retry queues \`<BUS_PREFIX>.${consumer.name}.retry.<ms>ms\` (growing delays) and after ` +
          `EVENT_MAX_ATTEMPTS goes to \`<BUS_PREFIX>.${consumer.name}.dead\`. ${DELIVERY.text}`,
        tags: [{ name: consumer.service }],
        messages: [{ $ref: message }],
        bindings: { amqp: { ack: true, bindingVersion: AMQP_BINDING } },
        'x-queue': `${PREFIX}.${consumer.name}`,
      };
    }
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Back-office events',
      version,
      description:
        'Events the services publish through their outboxes to the RabbitMQ topic exchange `<BUS_PREFIX>.events` ' +
        '(BUS_PREFIX defaults to `bo`), routed by their type. Every message is a JSON envelope ' +
        "`{ id, type, occurred_at, org_id, data }`; `data` is the event's own record.\n\n" +
        `**Delivery guarantees.** ${DELIVERY.text}`,
      'x-delivery': { guarantee: DELIVERY.guarantee, deduplicate_by: DELIVERY.deduplicate_by, ordering: DELIVERY.ordering },
    },
    defaultContentType: 'application/json',
    servers: {
      rabbitmq: {
        host: 'localhost:5672',
        protocol: 'amqp',
        protocolVersion: '0.9.1',
        description: 'The broker of AMQP_URL; exchange and queue names start with BUS_PREFIX',
      },
    },
    channels,
    operations,
    components: { messages },
  };
}
