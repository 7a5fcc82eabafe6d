import { inspect } from 'node:util';
import { ApiError, createClient, type Client, type ClientOptions } from '@bo/client';
import { consumers, serviceNames, type ServiceName } from '@bo/contracts';
import pg from 'pg';
import { gatewayMigrations } from '@bo/gateway';
import { System, serviceDefinitions } from '@bo/launcher';
import * as testing from '@bo/testkit';

export interface ApiResponse<B = Record<string, any>> {
  httpStatus: number;
  statusCode: number;
  headers: Record<string, string>;
  body: B;
  raw: Response;
}

export interface TestSystem {
  system: System;
  url: string;
  databaseUrl: string;
  /** API keys of two organizations, 1 and 2, for isolation tests. */
  keys: Record<1 | 2, string>;
  /** POSTs JSON through the gateway as organization 1 unless told otherwise. */
  post(
    path: string,
    body: Record<string, unknown>,
    opts?: { org?: 1 | 2; key?: string | null; headers?: Record<string, string> },
  ): Promise<ApiResponse>;
  /** The typed client (packages/client) with organization 1's key; raw `post` is for tests about the wire itself. */
  client: Client;
  /** A typed client with the key of `org`, and other options (a retry policy) if given. */
  clientOf(org: 1 | 2, options?: Partial<ClientOptions>): Client;
  /**
   * Resolves once every event written so far is published and in the inbox of each running consumer
   * that takes it: every effect of the writes before it has landed. Fails after `timeoutMs`.
   */
  eventsSettled(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Rate limits far above what a test sends, so tests that race many requests are not refused: the
 * limiter still runs on every request. Tests of the limits set their own (rate-limit.e2e.test.ts).
 */
const UNLIMITED_ENOUGH = {
  RATE_LIMIT_READS_PER_SECOND: '100000',
  RATE_LIMIT_WRITES_PER_SECOND: '100000',
  RATE_LIMIT_IN_FLIGHT: '1000',
  RATE_LIMIT_ANONYMOUS_PER_SECOND: '100000',
};

/** A database with every service's schema and the gateway's migrated, copied by each test system. */
export const systemTemplate = () =>
  testing.migratedTemplate('system', [
    ...serviceNames.map((name) => testing.serviceMigrations(serviceDefinitions[name])),
    { schema: 'gateway', migrations: gatewayMigrations },
  ]);

/**
 * The whole system (or the services named) in this process over real PostgreSQL and RabbitMQ (or the
 * in-process bus), with a fresh database (a copy of the migrated template) and bus prefix per test
 * file, and the gateway on a free port.
 */
export async function startTestSystem(
  opts: {
    services?: ServiceName[];
    env?: Record<string, string>;
    /**
     * `rabbitmq` (the default): each service on its own connection to the test broker, as in
     * production. `in-process`: one in-process bus, as `npm start` runs: for tests of business rules,
     * to which the transport adds nothing but its start-up (a second or two of queues and bindings).
     */
    bus?: 'rabbitmq' | 'in-process';
  } = {},
): Promise<TestSystem> {
  const db = await testing.createTestDatabase({ template: await systemTemplate() });
  const amqpUrl = opts.bus === 'in-process' ? undefined : await testing.testAmqpUrl();
  const system = new System({
    databaseUrl: db.url,
    amqpUrl,
    busPrefix: testing.uniqueName('t'),
    port: 0,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    services: opts.services,
    env: {
      EVENT_RETRY_BASE_MS: '50',
      OUTBOX_POLL_MS: '200',
      // Settling waits for events marked sent: marked soon, if no store carries the mark first.
      OUTBOX_MARK_DELAY_MS: '100',
      API_KEY_CACHE_MS: '0',
      EINVOICE_RULES_WARM: 'off',
      ...UNLIMITED_ENOUGH,
      ...opts.env,
    },
  });
  await system.start();
  const keys = { 1: await system.createApiKey(1), 2: await system.createApiKey(2) };
  const url = system.url;
  const clientOf = (org: 1 | 2, options: Partial<ClientOptions> = {}) => createClient({ baseUrl: url, apiKey: keys[org], ...options });
  return {
    system,
    url,
    databaseUrl: db.url,
    keys,
    async post(path, body, o = {}) {
      const key = o.key === undefined ? keys[o.org ?? 1] : o.key;
      const res = await fetch(url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...o.headers },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { statusCode: number; headers: Record<string, string>; body: Record<string, any> };
      return { httpStatus: res.status, statusCode: json.statusCode, headers: json.headers, body: json.body, raw: res };
    },
    client: clientOf(1),
    clientOf,
    eventsSettled: (timeoutMs = 20_000) => eventsSettled(db.url, opts.services ?? [...serviceNames], timeoutMs),
    async stop() {
      await system.stop();
      await system.destroyTopology();
      await db.drop();
    },
  };
}

async function eventsSettled(databaseUrl: string, running: readonly ServiceName[], timeoutMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const written = running.map((schema) => `select event_id, type from "${schema}".outbox`).join(' union all ');
    const behind = async (): Promise<string[]> => {
      const unsent = await client.query<{ n: string }>(
        `select count(*) as n from (${running.map((schema) => `select 1 from "${schema}".outbox where published_at is null`).join(' union all ')}) u`,
      );
      const lagging = [`${unsent.rows[0]!.n} events unpublished`].filter(() => Number(unsent.rows[0]!.n) > 0);
      // A routed consumer gets only the events routed to it when they were published: none is owed.
      for (const consumer of consumers.filter((c) => running.includes(c.service) && !c.routed)) {
        const { rows } = await client.query<{ n: string }>(
          `select count(*) as n from (${written}) o
            where o.type = any($1) and not exists (select 1 from "${consumer.service}".inbox i where i.consumer = $2 and i.event_id = o.event_id)`,
          [consumer.events, consumer.name],
        );
        if (Number(rows[0]!.n) > 0) lagging.push(`${consumer.name} has ${rows[0]!.n} to take`);
      }
      return lagging;
    };
    const deadline = Date.now() + timeoutMs;
    for (let lagging = await behind(); lagging.length > 0; lagging = await behind()) {
      if (Date.now() > deadline) throw new Error(`events did not settle within ${timeoutMs} ms: ${lagging.join('; ')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await client.end();
  }
}

/** Polls until the check passes or the time is up; for effects that arrive by events. */
export const { eventually } = testing;

/** The ApiError a call is refused with; fails the test if the call succeeds or fails otherwise. */
export async function refusal(call: Promise<unknown>): Promise<ApiError> {
  const outcome = await call.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (outcome instanceof ApiError) return outcome;
  throw new Error(
    outcome === undefined ? 'expected the call to be refused, but it succeeded' : `expected an ApiError, got ${inspect(outcome)}`,
  );
}
