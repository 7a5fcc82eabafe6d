import type { EventEnvelope } from '@bo/contracts';
import {
  AmqpBus,
  createDb,
  createLogger,
  serviceConfigSchema,
  startService,
  type Bus,
  type Knex,
  type PublishOptions,
  type RequestMeta,
  type RpcServer,
  type RunningService,
  type Subscription,
} from '@bo/runtime';
import * as testing from '@bo/testkit';
import { webhooksService } from '@bo/webhooks';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * The webhooks service's RPCs on one connection, its events (routes, consumer, outbox) on another:
 * the event side can lose RabbitMQ while its requests and answers still flow, so the refusal a write
 * answers reaches the client. (On one connection, as in production, a write that cannot route has
 * lost its RPC channel too: its answer is lost with it and the gateway answers 503/504 by itself.)
 */
class SplitBus implements Bus {
  readonly kind = 'amqp' as const;
  constructor(
    private readonly rpc: AmqpBus,
    private readonly events: AmqpBus,
  ) {}
  request(operation: string, payload: unknown, meta: RequestMeta, timeoutMs: number) {
    return this.rpc.request(operation, payload, meta, timeoutMs);
  }
  requestRaw(operation: string, payload: unknown, meta: RequestMeta, timeoutMs: number) {
    return this.rpc.requestRaw(operation, payload, meta, timeoutMs);
  }
  serve(service: string, operations: readonly string[], server: RpcServer) {
    return this.rpc.serve(service, operations, server);
  }
  publish(event: EventEnvelope, opts?: PublishOptions) {
    return this.events.publish(event, opts);
  }
  subscribe(subscription: Subscription) {
    return this.events.subscribe(subscription);
  }
  addRoutes(subscription: string, types: readonly string[]) {
    return this.events.addRoutes(subscription, types);
  }
  setRoutes(subscription: string, types: readonly string[]) {
    return this.events.setRoutes(subscription, types);
  }
  async stopConsuming() {
    await this.rpc.stopConsuming();
    await this.events.stopConsuming();
  }
  async close() {
    await this.rpc.close();
    await this.events.close();
  }
}

/**
 * An endpoint write routes its event types before it commits (docs/webhooks.md, "What it costs"):
 * when RabbitMQ cannot be reached to route them, the write answers a retryable 503 and changes
 * nothing, and the same write sent again once RabbitMQ is back succeeds.
 */
describe('an endpoint write while its types cannot be routed', () => {
  let sys: TestSystem;
  let broker: testing.TcpProxy;
  let rpcBus: AmqpBus;
  let eventsBus: AmqpBus;
  let bus: SplitBus;
  let db: Knex;
  let webhooks: RunningService;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    // Partners (and the gateway) on the system's own connections; webhooks started here, as above.
    sys = await startTestSystem({ services: ['partners'] });
    const amqpUrl = await testing.testAmqpUrl();
    const direct = new URL(amqpUrl);
    broker = await new testing.TcpProxy({ targetHost: direct.hostname, targetPort: Number(direct.port || 5672) }).start();
    const proxied = new URL(amqpUrl);
    proxied.hostname = broker.host;
    proxied.port = String(broker.port);
    const log = createLogger('webhooks', process.env.TEST_LOG_LEVEL ?? 'silent');
    const config = serviceConfigSchema(webhooksService).parse({
      DATABASE_URL: sys.databaseUrl,
      AMQP_URL: amqpUrl,
      BUS_PREFIX: sys.system.config.BUS_PREFIX,
      EVENT_RETRY_BASE_MS: '50',
      OUTBOX_POLL_MS: '200',
      WEBHOOKS_SECRET_KEYS: 'test:a test key of thirty-two characters or more',
      WEBHOOKS_ALLOW_HTTP: '1',
      WEBHOOKS_ALLOW_PRIVATE: '1',
      WEBHOOKS_POLL_MS: '100',
      WEBHOOKS_BROKER_TIMEOUT_MS: '1000',
    });
    const prefix = sys.system.config.BUS_PREFIX;
    rpcBus = new AmqpBus({ url: amqpUrl, prefix, log, retryBaseMs: 50 });
    eventsBus = new AmqpBus({ url: proxied.toString().replace(/\/$/, ''), prefix, log, retryBaseMs: 50 });
    await rpcBus.connect();
    await eventsBus.connect();
    bus = new SplitBus(rpcBus, eventsBus);
    db = createDb(sys.databaseUrl, 'webhooks', 2);
    webhooks = await startService(webhooksService, { db, bus, log, config });
    receiver = await new WebhookReceiver().start();
  }, 60_000);
  afterAll(async () => {
    await receiver?.stop();
    broker?.stopRefusing();
    await webhooks?.stop();
    await bus?.close();
    await rpcBus?.destroyTopology({ exchanges: false });
    await eventsBus?.destroyTopology({ exchanges: false });
    await broker?.close();
    await db?.destroy();
    await sys?.stop();
  });

  it('answers a retryable 503 and creates nothing; sent again once RabbitMQ is back, it is created and hears the events', async () => {
    const hooks = sys.clientOf(1, { retry: false }).webhooks;
    const create = { org_id: '1', userid: 'u1', url: receiver.url, events: ['partners.partner.created'] };
    // RabbitMQ gone for the event side: its connection reset, and every reconnect refused.
    broker.refuse(120_000);
    broker.cut();

    const refused = await refusal(hooks.endpoint.create(create));
    expect(refused).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(refused.message).toContain('cannot be routed to webhooks');
    // Nothing changed: no endpoint, listed or stored.
    expect((await hooks.endpoint.list({ org_id: '1' })).endpoints).toEqual([]);
    expect(await db('endpoints').count({ n: '*' })).toEqual([{ n: 0 }]);

    // Back: the same write, sent again with its key by a client that retries 503s, is created once.
    broker.stopRefusing();
    const careful = sys.clientOf(1, { retry: { attempts: 100, baseDelayMs: 100, maxDelayMs: 100, jitter: false } }).webhooks;
    const { endpoint } = await careful.endpoint.create(create, { idempotencyKey: refused.idempotencyKey });
    expect((await hooks.endpoint.list({ org_id: '1' })).endpoints.map((e) => e.id)).toEqual([endpoint.id]);

    // Its type is routed: the next partner reaches the receiver.
    const { partner } = await sys.client.partners.partner.create({
      org_id: '1',
      userid: 'u1',
      partnername: 'Heard',
      partner_type: 'customer',
    });
    await eventually(() => expect(receiver.ofType('partners.partner.created').map((h) => h.payload.data['id'])).toEqual([partner.id]));
  });

  it('answers a retryable 503 after WEBHOOKS_BROKER_TIMEOUT_MS while RabbitMQ takes the routing call and never answers', async () => {
    const hooks = sys.clientOf(1, { retry: false }).webhooks;
    const create = { org_id: '1', userid: 'u1', url: receiver.url, events: ['partners.partner.updated'] };
    // The event side's connection stalls for 4 s: what is sent is held, nothing comes back.
    const stalled = broker.blackhole(4000);
    const started = performance.now();
    const refused = await refusal(hooks.endpoint.create(create));
    expect(refused).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(refused.message).toContain('did not answer within 1000 ms');
    expect(performance.now() - started).toBeLessThan(2500);
    expect(
      await db('endpoints')
        .whereRaw('events @> ?::jsonb', [JSON.stringify(create.events)])
        .count({ n: '*' }),
    ).toEqual([{ n: 0 }]);
    await stalled;
    const { endpoint } = await hooks.endpoint.create(create, { idempotencyKey: refused.idempotencyKey });
    expect(endpoint.events).toEqual(['partners.partner.updated']);
  });
});
