import { randomUUID } from 'node:crypto';
import { defineEvent, type ConsumerDef, type EventEnvelope } from '@bo/contracts';
import { z } from 'zod';
import { bindConsumer } from './bound-consumer';
import type { Knex } from './db';
import { createLogger } from './logger';

const shipped = defineEvent({
  type: 'test.parcel.shipped',
  summary: 'shipped',
  data: z.object({ parcel: z.number().int(), weight: z.string() }),
});
const lost = defineEvent({ type: 'test.parcel.lost', summary: 'lost', data: z.object({ parcel: z.number().int() }) });
const contract: ConsumerDef<typeof shipped | typeof lost> = {
  name: 'test.parcels',
  service: 'catalog',
  summary: 'parcels',
  takes: [shipped, lost],
  events: [shipped.type, lost.type],
};
const log = createLogger('test', 'silent');
const trx = {} as Knex.Transaction;
const event = (type: string, data: Record<string, unknown>): EventEnvelope => ({
  id: randomUUID(),
  type,
  occurred_at: '2026-11-28T00:00:00Z',
  org_id: 1,
  data,
});

describe('a consumer bound to its contract', () => {
  it('takes its name and event types from the contract', () => {
    const bound = bindConsumer(contract).to({ batch: async () => undefined });
    expect(bound.name).toBe('test.parcels');
    expect(bound.events).toEqual(['test.parcel.shipped', 'test.parcel.lost']);
  });

  it('gives each event to the effect of its type, its data parsed', async () => {
    const seen: string[] = [];
    const bound = bindConsumer(contract).to({
      on: {
        [shipped.type]: async (_trx, e) => void seen.push(`shipped ${e.data.parcel} ${e.data.weight}`),
        [lost.type]: async (_trx, e) => void seen.push(`lost ${e.data.parcel}`),
      },
    });
    await bound.handle!(trx, event(shipped.type, { parcel: 7, weight: '1.5', extra: true }), log);
    await bound.handle!(trx, event(lost.type, { parcel: 8 }), log);
    expect(seen).toEqual(['shipped 7 1.5', 'lost 8']);
  });

  it('fails an event its contract does not take, so the broker retries it, unless told to skip it', async () => {
    const applied: number[] = [];
    const batch = async (_trx: Knex.Transaction, events: Array<{ data: { parcel: number } }>) =>
      void applied.push(...events.map((e) => e.data.parcel));
    const strict = bindConsumer(contract).to({ batch });
    await expect(strict.handleBatch!(trx, [event(shipped.type, { parcel: 'seven' })], log)).rejects.toThrow(
      /test.parcels: event .* is not as its contract says/,
    );
    const lenient = bindConsumer(contract).to({ batch, malformed: 'skip' });
    await lenient.handleBatch!(trx, [event(shipped.type, { parcel: 'seven' }), event(lost.type, { parcel: 9 })], log);
    expect(applied).toEqual([9]);
  });

  it('reads only what a read model keeps, so a record with fields missing or added still applies', () => {
    const kept = z.object({ parcel: z.number().int() });
    const bound = bindConsumer(contract).reading(kept, {
      statement: (events, _log, traces) => ({
        sql: 'select ?',
        bindings: [JSON.stringify({ parcels: events.map((e) => e.data.parcel), traces })],
      }),
      malformed: 'skip',
    });
    const traces = [{ traceparent: 'a' }, { traceparent: 'b' }, { traceparent: 'c' }];
    const statement = bound.statement!(
      [event(shipped.type, { parcel: 1 }), event(shipped.type, {}), event(lost.type, { parcel: 3 })],
      log,
      traces,
    );
    // The unreadable second event is left out, and its trace with it.
    expect(JSON.parse(statement!.bindings[0] as string)).toEqual({ parcels: [1, 3], traces: [{ traceparent: 'a' }, { traceparent: 'c' }] });
  });

  it('forwards events unread where the consumer passes them on whatever their type', () => {
    const bound = bindConsumer(contract).to({ forward: (events) => ({ sql: 'select ?', bindings: [events.length] }) });
    expect(bound.statement!([event(shipped.type, { anything: 1 })], log, [])).toEqual({ sql: 'select ?', bindings: [1] });
  });

  it('is given its effect exactly one way', () => {
    expect(() => bindConsumer(contract).to({})).toThrow(/one way/);
    expect(() => bindConsumer(contract).to({ batch: async () => undefined, forward: () => undefined })).toThrow(/not 2/);
  });
});
