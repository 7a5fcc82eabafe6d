import { randomUUID } from 'node:crypto';
import * as amqplib from 'amqplib';
import type { EventEnvelope } from '@bo/contracts';
import { AmqpBus, deleteTopology, topologyNames } from '../src/bus/amqp';
import { waitUntil as until } from '@bo/testkit';
import { closeBusPair, connectBusPair, envelope as thing, log, meta, onChannel, queueDepth } from './amqp-support';

/** Cuts the TCP connection under a bus, as a network failure or broker restart would. */
function cutConnection(bus: AmqpBus): void {
  type Internals = { connection: { conn: { connection: { stream: { destroy(e: Error): void } } } } };
  (bus as unknown as Internals).connection.conn.connection.stream.destroy(new Error('network failure'));
}

const queueExists = (url: string, queue: string) =>
  onChannel(url, (ch) =>
    ch.checkQueue(queue).then(
      () => true,
      () => false,
    ),
  );

describe('RabbitMQ bus', () => {
  let url: string;
  let prefix: string;
  let server: AmqpBus;
  let client: AmqpBus;
  beforeEach(async () => {
    ({ url, prefix, server, client } = await connectBusPair('bus'));
  });
  afterEach(() => closeBusPair({ server, client }));

  it('carries a request and its headers to the service and the reply back', async () => {
    let seen: unknown;
    await server.serve('svc', ['svc.echo'], async (op, payload, m) => {
      seen = { op, payload, m };
      return { ok: true, status: 200, body: { payload } };
    });
    const sent = Date.now();
    const reply = await client.request('svc.echo', { a: 1 }, { ...meta, userId: 'u9', operationKey: 'op1' }, 2000);
    expect(reply).toEqual({ ok: true, status: 200, body: { payload: { a: 1 } } });
    expect(seen).toEqual({
      op: 'svc.echo',
      payload: { a: 1 },
      // The deadline: when the caller stops waiting, its timeout after it sent.
      m: { orgId: 1, userId: 'u9', requestId: 'req-1', operationKey: 'op1', deadline: expect.any(Number) },
    });
    const deadline = (seen as { m: { deadline: number } }).m.deadline;
    expect(deadline).toBeGreaterThanOrEqual(sent + 2000);
    expect(deadline).toBeLessThanOrEqual(Date.now() + 2000);
  });

  it('writes the requests of one event-loop turn to the socket together, in order, each answered', async () => {
    await server.serve('svc', ['svc.echo'], async (_op, payload) => ({ ok: true, status: 200, body: { payload } }));
    await client.request('svc.echo', { warm: true }, meta, 2000); // the reply consumer and channel are set up
    type Socket = { _write: (...args: unknown[]) => void; _writev: (...args: unknown[]) => void };
    const socket = (client as unknown as { connection: { conn: { connection: { stream: Socket } } } }).connection.conn.connection.stream;
    const calls: string[] = [];
    const write = socket._write.bind(socket);
    const writev = socket._writev.bind(socket);
    socket._write = (...args) => (calls.push('write'), write(...args));
    socket._writev = (...args) => (calls.push('writev'), writev(...args));
    try {
      const replies = await Promise.all(Array.from({ length: 20 }, (_, n) => client.request('svc.echo', { n }, meta, 2000)));
      expect(replies).toEqual(Array.from({ length: 20 }, (_, n) => ({ ok: true, status: 200, body: { payload: { n } } })));
    } finally {
      socket._write = write;
      socket._writev = writev;
    }
    // amqplib alone writes each request on its own (20 system calls); corked, they leave as one.
    expect(calls).toEqual(['writev']);
  });

  /** Sends a request to an operation that takes a while; resolves once the service is running it. */
  async function requestRunning(operation: string): Promise<{ outcome: Promise<unknown> }> {
    let started = false;
    await server.serve('svc', [operation], async () => {
      started = true;
      await new Promise((r) => setTimeout(r, 400));
      return { ok: true, status: 200, body: {} };
    });
    const outcome = client.request(operation, {}, meta, 5000).catch((err: unknown) => err);
    await until(() => started);
    return { outcome };
  }

  it('fails a request whose connection drops while it waits as lost (it may have run), one never sent as unavailable', async () => {
    const dropped = await requestRunning('svc.hang');
    cutConnection(client);
    expect(await dropped.outcome).toMatchObject({ kind: 'lost' });

    const unconnected = new AmqpBus({ url, prefix, log });
    await expect(unconnected.request('svc.hang', {}, meta, 1000)).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(unconnected.publish(thing('x.y'))).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('fails a request still waiting when its bus closes as lost', async () => {
    const waiting = await requestRunning('svc.hang2');
    await client.close();
    expect(await waiting.outcome).toMatchObject({ kind: 'lost' });
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
    await until(async () => (await queueDepth(url, `${prefix}.svc.failing.dead`)) === 1);
    expect(failures).toBe(3);
  });

  it('lets a short retry overtake a long one: each back-off delay has its own retry queue', async () => {
    const bus = new AmqpBus({ url, prefix, log, retryBaseMs: 50, maxAttempts: 10 });
    await bus.connect();
    try {
      const seen: Array<{ id: string; attempt: number; at: number }> = [];
      const succeedsAt = new Map<string, number>();
      await bus.subscribe({
        name: 'svc.tiers',
        events: ['tier.*'],
        handler: async (e, d) => {
          seen.push({ id: e.id, attempt: d.attempt, at: Date.now() });
          if (d.attempt < (succeedsAt.get(e.id) ?? 1)) throw new Error('not yet');
        },
      });
      const attemptsOf = (id: string) => seen.filter((s) => s.id === id);
      const longTier = `${prefix}.svc.tiers.retry.3200ms`;

      // A arrives as its 7th attempt (as if it had failed six times) and fails: 50 ms x 2^6 = 3.2 s to wait.
      const a = thing('tier.a');
      succeedsAt.set(a.id, 8);
      const conn = await amqplib.connect(url);
      const confirm = await conn.createConfirmChannel();
      confirm.publish(`${prefix}.events`, a.type, Buffer.from(JSON.stringify(a)), { persistent: true, headers: { 'x-attempt': 7 } });
      await confirm.waitForConfirms();
      await conn.close();
      await until(async () => attemptsOf(a.id).length === 1 && (await queueDepth(url, longTier)) === 1);

      // B fails its first attempt after A went to wait: 50 ms.
      const b = thing('tier.b');
      succeedsAt.set(b.id, 2);
      await client.publish(b);
      await until(() => attemptsOf(b.id).length === 2);
      // B is back and handled while A is still waiting in its tier.
      expect(attemptsOf(a.id)).toHaveLength(1);
      expect(await queueDepth(url, longTier)).toBe(1);

      await until(() => attemptsOf(a.id).length === 2);
      const [aFailed, aRetried] = attemptsOf(a.id);
      const [bFailed, bRetried] = attemptsOf(b.id);
      expect([aFailed!.attempt, aRetried!.attempt, bFailed!.attempt, bRetried!.attempt]).toEqual([7, 8, 1, 2]);
      // A waited out its whole tier (a lower bound, which load cannot break); B overtook it.
      expect(aRetried!.at - aFailed!.at).toBeGreaterThanOrEqual(3000);
      expect(bRetried!.at).toBeLessThan(aRetried!.at);
    } finally {
      await bus.close();
      await bus.destroyTopology({ exchanges: false });
    }
  });

  it('names every queue it declares, each retry tier included, so removing a topology leaves none behind', async () => {
    await server.serve('svc', ['svc.named'], async () => ({ ok: true, status: 200, body: {} }));
    await server.subscribe({ name: 'svc.named', events: ['named.*'], handler: async () => undefined });
    const names = topologyNames(prefix, ['svc'], ['svc.named'], { retryBaseMs: 20 });
    const tiers = [20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240, 20480, 40960, 81920, 163840, 300000];
    expect(names.queues).toEqual([
      `${prefix}.rpc.svc`,
      `${prefix}.svc.named`,
      ...tiers.map((ms) => `${prefix}.svc.named.retry.${ms}ms`),
      `${prefix}.svc.named.dead`,
      `${prefix}.svc.named.retry`,
    ]);
    const declared = names.queues.filter((q) => q !== `${prefix}.svc.named.retry`);
    for (const q of declared) expect(await queueExists(url, q)).toBe(true);
    await deleteTopology(url, names);
    for (const q of names.queues) expect(await queueExists(url, q)).toBe(false);
  });

  it('reconnects after losing its connection and restores its consumers', async () => {
    await server.serve('svc', ['svc.ping2'], async () => ({ ok: true, status: 200, body: { pong: true } }));
    const got: string[] = [];
    await server.subscribe({ name: 'svc.events', events: ['x.y'], handler: async (e) => void got.push(e.id) });
    cutConnection(server);
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
    let started = false;
    let finished = false;
    await server.serve('svc', ['svc.work'], async () => {
      started = true;
      await new Promise((r) => setTimeout(r, 300));
      finished = true;
      return { ok: true, status: 200, body: {} };
    });
    const pending = client.request('svc.work', {}, meta, 2000);
    await until(() => started);
    await server.stopConsuming();
    expect(finished).toBe(true);
    await expect(pending).resolves.toMatchObject({ ok: true });
  });
  it('delivers a routed subscription only the types routed to it (subscribe, addRoutes, setRoutes), after a reconnect too', async () => {
    const got: string[] = [];
    await server.subscribe({
      name: 'svc.routed',
      events: ['r.a', 'r.b', 'r.c'],
      routes: ['r.a'],
      handler: async (e) => void got.push(e.type),
    });
    await expect(server.addRoutes('svc.other', ['r.a'])).rejects.toMatchObject({ kind: 'unavailable' });
    // One publisher, one queue: an event published before the last one would have arrived before it.
    const publishAll = async (...types: string[]) => {
      for (const type of types) await client.publish(thing(type));
      await until(() => got.at(-1) === types.at(-1));
    };
    await publishAll('r.b', 'r.c', 'r.a');
    expect(got).toEqual(['r.a']);
    await server.addRoutes('svc.routed', ['r.b']);
    await publishAll('r.c', 'r.b', 'r.a');
    expect(got).toEqual(['r.a', 'r.b', 'r.a']);
    await server.setRoutes('svc.routed', ['r.c']);
    await publishAll('r.a', 'r.b', 'r.c');
    expect(got).toEqual(['r.a', 'r.b', 'r.a', 'r.c']);

    cutConnection(server);
    // Routing waits for the connection to be back: until then it fails as unavailable.
    await until(() =>
      server.addRoutes('svc.routed', ['r.b']).then(
        () => true,
        () => false,
      ),
    );
    got.length = 0;
    await publishAll('r.a', 'r.b', 'r.c');
    expect(got).toEqual(['r.b', 'r.c']);
    await server.setRoutes('svc.routed', []);
    await publishAll('r.a', 'r.b', 'r.c');
    expect(got).toEqual(['r.b', 'r.c']);
    expect(await queueDepth(url, `${prefix}.svc.routed`)).toBe(0);
  });

  it('binds again on reconnect what it routed, and unbinds nothing another instance routed', async () => {
    const got: string[] = [];
    const handler = async (e: EventEnvelope) => void got.push(e.type);
    await server.subscribe({ name: 'svc.shared', events: ['s.a', 's.b'], routes: [], handler });
    const other = new AmqpBus({ url, prefix, log });
    await other.connect();
    try {
      await other.subscribe({ name: 'svc.shared', events: ['s.a', 's.b'], routes: [], handler });
      await other.addRoutes('svc.shared', ['s.b']);
      await server.addRoutes('svc.shared', ['s.a']);
      cutConnection(server);
      await until(() =>
        server.addRoutes('svc.shared', []).then(
          () => true,
          () => false,
        ),
      );
      for (const type of ['s.a', 's.b']) await client.publish(thing(type));
      await until(() => got.length === 2);
      expect(got.sort()).toEqual(['s.a', 's.b']);
    } finally {
      await other.close();
    }
  });
});
