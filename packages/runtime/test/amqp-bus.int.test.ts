import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@bo/contracts';
import { AmqpBus } from '../src/bus/amqp';
import { createLogger } from '../src/logger';
import { testAmqpUrl, uniqueName } from '../src/testing/infra';

const log = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
const meta = { orgId: 1, requestId: 'req-1' };

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('RabbitMQ bus', () => {
  let url: string;
  let server: AmqpBus;
  let client: AmqpBus;
  beforeEach(async () => {
    url = await testAmqpUrl();
    const prefix = uniqueName('bus');
    server = new AmqpBus({ url, prefix, log, retryBaseMs: 20, maxAttempts: 3 });
    client = new AmqpBus({ url, prefix, log });
    await server.connect();
    await client.connect();
  });
  afterEach(async () => {
    await client.close();
    await server.close();
    await server.destroyTopology();
  });

  it('carries a request and its headers to the service and the reply back', async () => {
    let seen: unknown;
    await server.serve('svc', ['svc.echo'], async (op, payload, m) => {
      seen = { op, payload, m };
      return { ok: true, status: 200, body: { payload } as Record<string, unknown> };
    });
    const reply = await client.request('svc.echo', { a: 1 }, { ...meta, userId: 'u9', idempotencyKey: 'k1' }, 2000);
    expect(reply).toEqual({ ok: true, status: 200, body: { payload: { a: 1 } } });
    expect(seen).toEqual({ op: 'svc.echo', payload: { a: 1 }, m: { orgId: 1, userId: 'u9', requestId: 'req-1', idempotencyKey: 'k1' } });
  });

  it('rejects at once when no service serves the operation, and after the timeout when none answers', async () => {
    await expect(client.request('nobody.home', {}, meta, 2000)).rejects.toMatchObject({ kind: 'unroutable' });
    await server.serve('slow', ['slow.op'], () => new Promise((r) => setTimeout(() => r({ ok: true, status: 200, body: {} }), 1500)));
    await expect(client.request('slow.op', {}, meta, 200)).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('delivers events to subscribers, retries a failing handler and dead-letters it at the end', async () => {
    const got: EventEnvelope[] = [];
    let failures = 0;
    await server.subscribe({ name: 'svc.ok', events: ['thing.*'], handler: async (e) => void got.push(e) });
    await server.subscribe({
      name: 'svc.failing',
      events: ['thing.happened'],
      handler: async () => {
        failures++;
        throw new Error('nope');
      },
    });
    const event = { id: randomUUID(), type: 'thing.happened', occurred_at: '2026-01-01T00:00:00', org_id: 1, data: { n: 1 } };
    await client.publish(event);
    await until(() => got.length === 1 && failures === 3);
    expect(got[0]).toEqual(event);
  });

  it('reconnects after losing its connection and restores its consumers', async () => {
    await server.serve('svc', ['svc.ping2'], async () => ({ ok: true, status: 200, body: { pong: true } }));
    const got: string[] = [];
    await server.subscribe({ name: 'svc.events', events: ['x.y'], handler: async (e) => void got.push(e.id) });
    // Cut the TCP connection under the bus, as a network failure or broker restart would.
    (server as unknown as { conn: { connection: { stream: { destroy(e: Error): void } } } }).conn.connection.stream.destroy(new Error('network failure'));
    await until(async () => {
      try {
        return (await client.request('svc.ping2', {}, meta, 300)).ok;
      } catch {
        return false;
      }
    });
    const id = randomUUID();
    await client.publish({ id, type: 'x.y', occurred_at: '2026-01-01T00:00:00', org_id: 1, data: {} });
    await until(() => got.includes(id));
  });

  it('finishes handlers in flight when it stops consuming', async () => {
    let finished = false;
    await server.serve('svc', ['svc.work'], async () => {
      await new Promise((r) => setTimeout(r, 300));
      finished = true;
      return { ok: true, status: 200, body: {} };
    });
    const pending = client.request('svc.work', {}, meta, 2000);
    await new Promise((r) => setTimeout(r, 100));
    await server.stopConsuming();
    expect(finished).toBe(true);
    await expect(pending).resolves.toMatchObject({ ok: true });
  });
});
