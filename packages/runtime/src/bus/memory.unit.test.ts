import { createLogger } from '../logger';
import { MemoryBus, topicMatches } from './memory';

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
    await bus.publish({ id: '00000000-0000-4000-8000-000000000001', type: 'e.happened', occurred_at: '', org_id: 1, data: {} });
    await new Promise((r) => setTimeout(r, 100));
    expect(attempts).toEqual([1, 2, 3]);
    expect(bus.deadLetters).toHaveLength(1);
  });
});
