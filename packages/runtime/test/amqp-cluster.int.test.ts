import { AmqpBus } from '../src/bus/amqp';
import { QUORUM_DELIVERY_LIMIT, queueDeclaration, type QueueRole } from '../src/bus/topology';
import { TcpProxy, testAmqpUrl, uniqueName, waitUntil as until } from '@bo/testkit';
import { closeBusPair, connectBusPair, envelope, log, meta, onChannel, queueDepth } from './amqp-support';

/**
 * The bus past one broker node, over the shared broker: quorum queues (a single node runs them as
 * a cluster of one) and a list of nodes, here two TCP proxies in front of the same broker, so one
 * "node" can go down while the other stays.
 */
const event = (type: string) => envelope(type, { n: 1 });

/**
 * A quorum queue refuses a redeclaration with its own arguments but as a classic queue
 * (PRECONDITION_FAILED on x-queue-type): proof of its type.
 */
const isQuorum = (url: string, queue: string, role: QueueRole) => {
  const declaration = queueDeclaration('quorum', role);
  return onChannel(url, (ch) =>
    ch.assertQueue(queue, { ...declaration, arguments: { ...declaration.arguments, 'x-queue-type': 'classic' } }).then(
      () => false,
      (err: Error) => /x-queue-type/.test(err.message),
    ),
  );
};

describe('RabbitMQ bus with quorum queues', () => {
  let url: string;
  let prefix: string;
  let server: AmqpBus;
  let client: AmqpBus;
  beforeEach(async () => {
    ({ url, prefix, server, client } = await connectBusPair('quorum', { queueType: 'quorum' }));
  });
  afterEach(() => closeBusPair({ server, client }));

  it('declares every durable queue as a quorum queue and keeps the retry semantics: tiers, then the dead letters', async () => {
    await server.serve('svc', ['svc.echo'], async (_op, payload) => ({ ok: true, status: 200, body: { payload } }));
    expect(await client.request('svc.echo', { a: 1 }, meta, 3000)).toEqual({ ok: true, status: 200, body: { payload: { a: 1 } } });
    let failures = 0;
    const attempts: number[] = [];
    await server.subscribe({
      name: 'svc.failing',
      events: ['thing.happened'],
      handler: async (_e, ctx) => {
        failures++;
        attempts.push(ctx.attempt);
        throw new Error('nope');
      },
    });
    await client.publish(event('thing.happened'));
    await until(async () => (await queueDepth(url, `${prefix}.svc.failing.dead`)) === 1);
    expect(failures).toBe(3);
    expect(attempts).toEqual([1, 2, 3]);
    const main = `${prefix}.svc.failing`;
    const queues: Array<[string, QueueRole]> = [
      [`${prefix}.rpc.svc`, { role: 'rpc' }],
      [main, { role: 'main', dead: `${main}.dead` }],
      [`${main}.retry.20ms`, { role: 'retry', delayMs: 20, main }],
      [`${main}.dead`, { role: 'dead' }],
    ];
    for (const [q, role] of queues) expect([q, await isQuorum(url, q, role)]).toEqual([q, true]);
  });

  it('parks a message that goes back unacknowledged past the delivery limit in the dead letters, instead of dropping it', async () => {
    const consumer = `${prefix}.svc.crashing`;
    // A consumer that never settles a message and loses its channel each time, as one killed while handling it.
    await server.subscribe({ name: 'svc.crashing', events: ['thing.crash'], handler: () => new Promise<void>(() => undefined) });
    await server.close();
    await client.publish(event('thing.crash'));
    let deliveries = 0;
    await until(
      async () => {
        const got = await onChannel(url, async (ch) => {
          const msg = await ch.get(consumer, { noAck: false });
          if (msg) deliveries++;
          // Closing the channel with the message unacknowledged returns it, counted as a delivery.
          return msg !== false;
        });
        return !got;
      },
      { timeoutMs: 20_000 },
    );
    // Returned `limit` times, the next return parks it (the broker counts from its first return).
    expect(deliveries).toBeGreaterThanOrEqual(QUORUM_DELIVERY_LIMIT);
    expect(deliveries).toBeLessThanOrEqual(QUORUM_DELIVERY_LIMIT + 1);
    await until(async () => (await queueDepth(url, `${consumer}.dead`)) === 1);
  }, 40_000);
});

describe('RabbitMQ bus over a list of nodes', () => {
  let url: string;
  let prefix: string;
  let nodes: TcpProxy[];
  let server: AmqpBus | undefined;
  beforeEach(async () => {
    url = await testAmqpUrl();
    prefix = uniqueName('nodes');
    const broker = new URL(url);
    nodes = await Promise.all(
      [1, 2].map(() => new TcpProxy({ targetHost: broker.hostname, targetPort: Number(broker.port || 5672) }).start()),
    );
  });
  afterEach(async () => {
    await server?.close();
    await server?.destroyTopology();
    for (const n of nodes) await n.close();
  });

  const nodeUrl = (proxy: TcpProxy) => {
    const u = new URL(url);
    u.hostname = proxy.host;
    u.port = String(proxy.port);
    return u.toString().replace(/\/$/, '');
  };

  it('connects to the first node that answers, and after losing it reconnects to the next one', async () => {
    nodes[0]!.refuse(3000);
    const list = `${nodeUrl(nodes[0]!)},${nodeUrl(nodes[1]!)}`;
    server = new AmqpBus({ url: list, prefix, log, connectTimeoutMs: 5000 });
    await server.connect();
    const connectedPort = () => (server as unknown as { connection: { connectedNode?: string } }).connection.connectedNode;
    expect(connectedPort()).toContain(`:${nodes[1]!.port}`);
    await server.serve('svc', ['svc.ping'], async () => ({ ok: true, status: 200, body: { pong: true } }));

    // The first node is back; the one it is on goes down: it goes on to the next node, the first.
    await until(() => !nodes[0]!.refusing, { timeoutMs: 5000 });
    nodes[1]!.refuse(60_000);
    nodes[1]!.cut();
    await until(() => connectedPort()?.includes(`:${nodes[0]!.port}`) === true, { timeoutMs: 15_000 });
    const client = new AmqpBus({ url, prefix, log });
    await client.connect();
    try {
      await until(async () => (await client.request('svc.ping', {}, meta, 1000).catch(() => ({ ok: false }))).ok, { timeoutMs: 15_000 });
    } finally {
      await client.close();
    }
  });
});
