import type { EventEnvelope } from '@bo/contracts';
import { createLogger } from '../logger';
import { MemoryBus, topicMatches } from './memory';
import type { DeliveryStore, PendingDelivery, Subscription } from './types';
import { waitUntil } from '@bo/testkit';

/** A DeliveryStore in a plain map, standing in for the database one: it outlives the buses that use it. */
function mapStore() {
  const rows = new Map<string, PendingDelivery>();
  const dead: Array<{ event: EventEnvelope; attempts: number }> = [];
  const store: DeliveryStore = {
    async add(event) {
      if (rows.has(event.id)) return false;
      rows.set(event.id, { event, attempt: 1, dueAt: Date.now() });
      return true;
    },
    async retry(id, attempt, dueAt) {
      const row = rows.get(id);
      if (row) rows.set(id, { ...row, attempt, dueAt });
    },
    async done(id) {
      rows.delete(id);
    },
    async dead(event, attempts) {
      rows.delete(event.id);
      dead.push({ event, attempts });
    },
    async pending() {
      return [...rows.values()];
    },
  };
  return { store, rows, dead };
}

const anEvent = (n = 1): EventEnvelope => ({
  id: `00000000-0000-4000-8000-00000000000${n}`,
  type: 'e.happened',
  occurred_at: '',
  org_id: 1,
  data: {},
});

describe('topic matching', () => {
  it('follows AMQP topic rules', () => {
    expect(topicMatches('invoicing.invoice.validated', 'invoicing.invoice.validated')).toBe(true);
    expect(topicMatches('invoicing.*.validated', 'invoicing.invoice.validated')).toBe(true);
    expect(topicMatches('invoicing.#', 'invoicing.invoice.validated')).toBe(true);
    expect(topicMatches('#', 'a')).toBe(true);
    expect(topicMatches('invoicing.*', 'invoicing.invoice.validated')).toBe(false);
    expect(topicMatches('sales.#', 'invoicing.invoice.validated')).toBe(false);
  });
});

describe('in-process bus', () => {
  const log = createLogger('test', 'silent');

  it('answers RPCs, and refuses operations nobody serves', async () => {
    const bus = new MemoryBus({ log });
    await bus.serve('s', ['s.echo'], async (_op, payload) => ({ ok: true, status: 200, body: { echoed: payload } }));
    const meta = { orgId: 1, requestId: 'r' };
    await expect(bus.request('s.echo', { a: 1 }, meta, 1000)).resolves.toEqual({ ok: true, status: 200, body: { echoed: { a: 1 } } });
    await expect(bus.request('s.missing', {}, meta, 1000)).rejects.toMatchObject({ kind: 'unroutable' });
  });

  it('times out a slow handler', async () => {
    const bus = new MemoryBus({ log });
    await bus.serve('s', ['s.slow'], () => new Promise((r) => setTimeout(() => r({ ok: true, status: 200, body: {} }), 300)));
    await expect(bus.request('s.slow', {}, { orgId: 1, requestId: 'r' }, 20)).rejects.toMatchObject({ kind: 'timeout' });
    await bus.close();
  });

  it('retries a failing event handler, then dead-letters it', async () => {
    const bus = new MemoryBus({ log, maxAttempts: 3, retryBaseMs: 1 });
    const attempts: number[] = [];
    await bus.subscribe({
      name: 'x',
      events: ['e.#'],
      handler: async (_e, d) => {
        attempts.push(d.attempt);
        throw new Error('boom');
      },
    });
    await bus.publish(anEvent());
    await waitUntil(() => bus.deadLetters.length === 1);
    expect(attempts).toEqual([1, 2, 3]);
  });

  describe('with a delivery store', () => {
    const recording = (store: DeliveryStore, attempts: number[], fails: (attempt: number) => boolean): Subscription => ({
      name: 'x',
      events: ['e.#'],
      store,
      handler: async (_e, d) => {
        attempts.push(d.attempt);
        if (fails(d.attempt)) throw new Error('boom');
      },
    });

    it('keeps a retry still waiting at stop, and a new bus makes it with its attempt count', async () => {
      const { store, rows } = mapStore();
      const first: number[] = [];
      const before = new MemoryBus({ log, retryBaseMs: 60_000 });
      await before.subscribe(recording(store, first, () => true));
      await before.publish(anEvent());
      await waitUntil(() => rows.get(anEvent().id)?.attempt === 2);
      await before.stopConsuming();
      expect(first).toEqual([1]);

      rows.set(anEvent().id, { ...rows.get(anEvent().id)!, dueAt: Date.now() }); // the minute went by while stopped
      const second: number[] = [];
      const after = new MemoryBus({ log, retryBaseMs: 60_000 });
      await after.subscribe(recording(store, second, () => false));
      await waitUntil(() => rows.size === 0);
      expect(second).toEqual([2]);
      await after.close();
    });

    it('stores an event published after it stopped consuming, without delivering it', async () => {
      const { store, rows } = mapStore();
      const attempts: number[] = [];
      const bus = new MemoryBus({ log });
      await bus.subscribe(recording(store, attempts, () => false));
      await bus.stopConsuming();
      await bus.publish(anEvent());
      expect([...rows.keys()]).toEqual([anEvent().id]);
      await new MemoryBus({ log }).subscribe(recording(store, attempts, () => false));
      await waitUntil(() => rows.size === 0);
      expect(attempts).toEqual([1]);
    });

    it('delivers an event published again while it is pending once', async () => {
      const { store, rows } = mapStore();
      const attempts: number[] = [];
      const bus = new MemoryBus({ log, retryBaseMs: 1 });
      await bus.subscribe(recording(store, attempts, (a) => a < 3));
      await Promise.all([bus.publish(anEvent()), bus.publish(anEvent())]);
      await waitUntil(() => rows.size === 0);
      expect(attempts).toEqual([1, 2, 3]);
    });

    it("moves an event that failed its last attempt to the store's dead letters", async () => {
      const { store, rows, dead } = mapStore();
      const bus = new MemoryBus({ log, maxAttempts: 2, retryBaseMs: 1 });
      await bus.subscribe(recording(store, [], () => true));
      await bus.publish(anEvent());
      await waitUntil(() => dead.length === 1);
      expect(dead[0]).toMatchObject({ attempts: 2, event: { id: anEvent().id } });
      expect(rows.size).toBe(0);
    });

    it('refuses an event a store cannot take, and hands it to the consumers that did take it', async () => {
      const good = mapStore();
      const broken: DeliveryStore = { ...mapStore().store, add: () => Promise.reject(new Error('database down')) };
      const handled: string[] = [];
      const bus = new MemoryBus({ log });
      await bus.subscribe({ name: 'x', events: ['e.#'], store: good.store, handler: async (e) => void handled.push(e.id) });
      await bus.subscribe({ ...recording(broken, [], () => false), name: 'y' });
      // The outbox keeps it and publishes it again; the consumer that stored it has it meanwhile.
      await expect(bus.publish(anEvent(1))).rejects.toMatchObject({ kind: 'unavailable' });
      await waitUntil(() => handled.length === 1);
      await waitUntil(() => good.rows.size === 0);
      await bus.close();
    });
  });
});

describe('in-process bus: a routed subscription', () => {
  const log = createLogger('test', 'silent');
  const event = (type: string, n: number): EventEnvelope => ({ ...anEvent(n), type });

  it('gets only the types routed to it when each event is published: from subscribe, addRoutes and setRoutes', async () => {
    const bus = new MemoryBus({ log });
    const got: string[] = [];
    const handler = async (e: EventEnvelope) => void got.push(e.id);
    await bus.subscribe({ name: 'hooks', events: ['a.one', 'a.two', 'b.one'], routes: ['a.one'], handler });
    await expect(bus.addRoutes('other', ['a.one'])).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(bus.addRoutes('hooks', ['c.nope'])).rejects.toThrow(/does not take c.nope/);

    await bus.publish(event('a.one', 1));
    await bus.publish(event('a.two', 2));
    await bus.addRoutes('hooks', ['b.one']);
    await bus.publish(event('b.one', 3));
    await bus.setRoutes('hooks', ['a.two']);
    await bus.publish(event('a.one', 4));
    await bus.publish(event('b.one', 5));
    await bus.publish(event('a.two', 6));
    await waitUntil(() => got.length === 3);
    await bus.stopConsuming();
    expect(got.sort()).toEqual([event('a.one', 1).id, event('b.one', 3).id, event('a.two', 6).id].sort());
  });
});
