import { userIdText, type EventEnvelope, type RpcReply } from '@bo/contracts';
import { randomUUID } from 'node:crypto';
import * as amqplib from 'amqplib';
import {
  AmqpBus,
  type Subscription,
  createDb,
  type Knex,
  createLogger,
  type RequestMeta,
  serviceConfigSchema,
  startService,
  type RunningService,
  type ServiceDefinition,
} from '@bo/runtime';
import { createTestDatabase, testAmqpUrl, uniqueName } from './infra';
import { migratedTemplate, serviceMigrations } from './template';

/** How long a test's call waits for its reply. */
const CALL_TIMEOUT_MS = 20_000;

export interface TestService {
  /** The bus prefix of this test's queues and exchanges. */
  prefix: string;
  /** The service's PostgreSQL schema. */
  schema: string;
  amqpUrl: string;
  /** The service's own pool (search_path = its schema), for asserting on stored rows. */
  db: Knex;
  /** A second bus connection acting as a client of the service. */
  client: AmqpBus;
  running: RunningService;
  /** Calls an operation as the gateway would: `userid` in the payload becomes the caller's user id. */
  call(operation: string, payload: Record<string, unknown>, orgId?: number, meta?: Partial<RequestMeta>): Promise<RpcReply>;
  /** Publishes an event on the service's events exchange as another service would. */
  publish(type: string, orgId: number, data: Record<string, unknown>, id?: string): Promise<EventEnvelope>;
  /** Collects events of the given types as a subscriber elsewhere would see them. */
  collect(types: string[]): Promise<EventEnvelope[]>;
  /** Messages waiting in one of this test's queues, named without the prefix (`partners.ledger.dead`). */
  queueDepth(name: string): Promise<number>;
  stop(): Promise<void>;
}

/** One service over real PostgreSQL and RabbitMQ, fresh database and bus prefix, for integration tests. */
export async function startTestService(def: ServiceDefinition, env: Record<string, string> = {}): Promise<TestService> {
  const database = await createTestDatabase({ template: await migratedTemplate(def.name, [serviceMigrations(def)]) });
  const amqpUrl = await testAmqpUrl();
  const prefix = uniqueName('it');
  const config = serviceConfigSchema(def).parse({
    DATABASE_URL: database.url,
    AMQP_URL: amqpUrl,
    BUS_PREFIX: prefix,
    EVENT_RETRY_BASE_MS: '50',
    OUTBOX_POLL_MS: '200',
    OUTBOX_MARK_DELAY_MS: '100',
    ...env,
  });
  const log = createLogger(def.name, process.env.TEST_LOG_LEVEL ?? 'silent');
  const serviceBus = new AmqpBus({
    url: amqpUrl,
    prefix,
    log,
    maxAttempts: config.EVENT_MAX_ATTEMPTS,
    retryBaseMs: config.EVENT_RETRY_BASE_MS,
  });
  await serviceBus.connect();
  const db = createDb(database.url, def.name, 5);
  const running = await startService(def, { db, bus: serviceBus, log, config });
  const client = new AmqpBus({ url: amqpUrl, prefix, log });
  await client.connect();
  let collectors = 0;
  return {
    prefix,
    schema: def.name,
    amqpUrl,
    db,
    client,
    running,
    call: (operation, payload, orgId = 1, meta = {}) => {
      const userId = userIdText(payload['userid']);
      // Long enough for a PDF drawn on a 2-core machine that runs the whole suite beside it (over 5 s
      // seen), short of jest's 30 s per test, so a call that never answers still fails as itself.
      return client.request(
        operation,
        { org_id: String(orgId), ...payload },
        { orgId, userId, requestId: randomUUID(), ...meta },
        CALL_TIMEOUT_MS,
      );
    },
    async publish(type, orgId, data, id = randomUUID()) {
      const event = { id, type, occurred_at: new Date().toISOString().slice(0, 19), org_id: orgId, data };
      await client.publish(event);
      return event;
    },
    async collect(types) {
      const seen: EventEnvelope[] = [];
      const sub: Subscription = { name: `test.collector${++collectors}`, events: types, handler: async (e) => void seen.push(e) };
      await client.subscribe(sub);
      return seen;
    },
    async queueDepth(name) {
      const conn = await amqplib.connect(amqpUrl);
      try {
        const ch = await conn.createChannel();
        return (await ch.checkQueue(`${prefix}.${name}`)).messageCount;
      } finally {
        await conn.close();
      }
    },
    async stop() {
      await running.stop();
      await serviceBus.close();
      await client.close();
      await serviceBus.destroyTopology();
      await client.destroyTopology();
      await db.destroy();
      await database.drop();
    },
  };
}
