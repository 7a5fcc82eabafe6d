import { Parser } from '@asyncapi/parser';
import { buildAsyncApi } from './asyncapi';
import { events } from './catalogue';
import { consumers, publisherOf } from './consumers';
import { serviceNames } from './operation';

type Json = Record<string, any>;

const doc: Json = buildAsyncApi();
/** DiagnosticSeverity.Error of @stoplight/types (0); hints, infos and warnings do not fail the test. */
const isError = (severity: number) => severity === 0;

describe('AsyncAPI document', () => {
  it('parses with @asyncapi/parser without an error diagnostic', async () => {
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(doc));
    const errors = diagnostics.filter((d) => isError(d.severity)).map((d) => `${d.path.join('.')}: ${d.message}`);
    expect(errors).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
    expect(document?.channels().length).toBe(events.length);
  });

  it('has a channel per event type on the events topic exchange, routed by the type', () => {
    expect(Object.keys(doc['channels']).sort()).toEqual(events.map((e) => e.type).sort());
    for (const event of events) {
      const channel = doc['channels'][event.type];
      expect(channel.address).toBe(event.type);
      expect(channel.bindings.amqp).toMatchObject({ is: 'routingKey', exchange: { name: 'bo.events', type: 'topic', durable: true } });
    }
  });

  it('gives every message the envelope: id to de-duplicate by, the type as a constant, org_id, occurred_at and the data schema', () => {
    for (const event of events) {
      const payload = doc['components'].messages[event.type].payload;
      expect(payload.required).toEqual(expect.arrayContaining(['id', 'type', 'occurred_at', 'org_id', 'data']));
      expect(payload.properties.type.const).toBe(event.type);
      expect(payload.properties.id).toMatchObject({ type: 'string', format: 'uuid' });
      expect(payload.properties.data.type).toBe('object');
    }
  });

  it('has each event sent by the service its type names, and received by every consumer the catalogue lists', () => {
    const ops: Json[] = Object.values(doc['operations']);
    for (const event of events) {
      const channel = { $ref: `#/channels/${event.type}` };
      const senders = ops.filter((op) => op['action'] === 'send' && op['channel'].$ref === channel.$ref).map((op) => op['tags'][0].name);
      expect([event.type, senders]).toEqual([event.type, [publisherOf(event.type)]]);
      const receivers = ops.filter((op) => op['action'] === 'receive' && op['channel'].$ref === channel.$ref).map((op) => op['x-queue']);
      expect(receivers.sort()).toEqual(
        consumers
          .filter((c) => c.events.includes(event.type))
          .map((c) => `bo.${c.name}`)
          .sort(),
      );
    }
    expect(ops.filter((op) => op['action'] === 'receive').length).toBe(consumers.reduce((n, c) => n + c.events.length, 0));
  });

  it('lists consumers of known events only, each in a known service', () => {
    const types = new Set(events.map((e) => e.type));
    for (const consumer of consumers) {
      expect(serviceNames).toContain(consumer.service);
      expect(consumer.events.filter((t) => !types.has(t))).toEqual([]);
    }
    expect(events.map((e) => publisherOf(e.type)).filter((s) => !(serviceNames as readonly string[]).includes(s))).toEqual([]);
  });

  it('states the delivery guarantees: at least once, de-duplicate by id, no order', () => {
    expect(doc['info']['x-delivery']).toEqual({ guarantee: 'at-least-once', deduplicate_by: 'id', ordering: 'none' });
    expect(doc['info'].description).toMatch(/at least once/);
    expect(doc['info'].description).toMatch(/Order is not guaranteed/);
  });
});
