import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { createDb, createLogger, MemoryBus, metricsRegistry, migrate, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { createApiKey } from '../src/api-key/api-keys';
import { createGatewayApp } from '../src/http/app';
import { trustedProxies } from '../src/http/client-address';
import { gatewayMigrations } from '../src/migrations';

/** Every request leaves one info line at its end: method, path, status, ms, request id and organization. */
describe('gateway access log', () => {
  let database: testing.TestDatabase;
  let db: Knex;
  let bus: MemoryBus;
  let server: Server;
  let url: string;
  let key: string;
  /** The balance handler waits for this, so a test can abandon its request while the gateway waits. */
  let balanceStarted: () => void = () => undefined;
  let releaseBalance: () => void = () => undefined;
  const lines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    database = await testing.createTestDatabase();
    db = createDb(database.url, 'gateway', 2);
    await migrate(db, 'gateway', gatewayMigrations);
    key = (await createApiKey(db, 7, 'test')).key;
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const log = createLogger('gateway', 'info', sink);
    bus = new MemoryBus({ log });
    await bus.serve('partners', ['partners.partner.list'], async () => ({
      ok: true,
      status: 200,
      body: { message: 'ok', partners: [], pagination: { page_number: 1, page_size: 20, total: 0 } },
    }));
    await bus.serve('partners', ['partners.partner.balance'], async () => {
      balanceStarted();
      await new Promise<void>((resolve) => (releaseBalance = resolve));
      return { ok: false, status: 404, code: 'not_found', message: 'Partner not found' } as const;
    });
    const app = createGatewayApp({
      db,
      bus,
      log,
      config: {
        BODY_LIMIT_BYTES: 1024 * 1024,
        API_KEY_CACHE_MS: 0,
        RPC_TIMEOUT_MS: 2000,
        HEALTH_SERVICES: ['partners'],
        IDEMPOTENCY_TTL_HOURS: 24,
        RATE_LIMIT_READS_PER_SECOND: 0,
        RATE_LIMIT_ANONYMOUS_PER_SECOND: 0,
        RATE_LIMIT_WRITES_PER_SECOND: 0,
        RATE_LIMIT_IN_FLIGHT: 0,
        RATE_LIMIT_LEASE_MS: 100,
        TRUST_PROXY: trustedProxies(''),
      },
    });
    server = await new Promise<Server>((resolve) => {
      const s = createServer(app).listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await bus.close();
    await db.destroy();
    await database.drop();
  });

  /** The access line of a request, once its response has finished. */
  async function accessLine(requestId: string): Promise<Record<string, unknown>> {
    return testing.eventually(() => {
      const line = lines.find((l) => l['msg'] === 'request' && l['request_id'] === requestId);
      if (!line) throw new Error(`no access line for ${requestId}`);
      return line;
    });
  }

  it('logs an authenticated request with its organization', async () => {
    const res = await fetch(`${url}/crm/partners`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'x-request-id': 'access-1', 'content-type': 'application/json' },
      body: JSON.stringify({ org_id: 7 }),
    });
    expect(res.status).toBe(200);
    const line = await accessLine('access-1');
    expect(line).toMatchObject({ level: 30, method: 'POST', path: '/crm/partners', status: 200, request_id: 'access-1', org_id: 7 });
    expect(typeof line['ms']).toBe('number');
    expect(lines.filter((l) => l['request_id'] === 'access-1' && l['msg'] === 'request')).toHaveLength(1);
  });

  it('logs refused and unknown requests too, without an organization when none was established', async () => {
    await fetch(`${url}/no/such/path`, { method: 'POST', headers: { 'x-request-id': 'access-2' }, body: '{}' });
    await fetch(`${url}/crm/partners`, { method: 'GET', headers: { 'x-request-id': 'access-3' } });
    expect(await accessLine('access-2')).toMatchObject({ method: 'POST', path: '/no/such/path', status: 404 });
    expect((await accessLine('access-2'))['org_id']).toBeUndefined();
    expect(await accessLine('access-3')).toMatchObject({ method: 'GET', path: '/crm/partners', status: 405 });
  });
  it('labels a request the client abandoned before its answer 499, in the access line and the histogram', async () => {
    const sample = async () => {
      const metric = await metricsRegistry.getSingleMetric('bo_http_request_duration_seconds')!.get();
      const values = metric.values as Array<{ metricName?: string; labels: Record<string, string | number | undefined>; value: number }>;
      const count = values.find(
        (v) =>
          v.metricName === 'bo_http_request_duration_seconds_count' &&
          v.labels['route'] === '/crm/partners' &&
          v.labels['status'] === '499',
      );
      return count?.value ?? 0;
    };
    const before = await sample();
    const started = new Promise<void>((resolve) => (balanceStarted = resolve));
    const controller = new AbortController();
    const request = fetch(`${url}/crm/partners`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'x-request-id': 'access-abandoned', 'content-type': 'application/json' },
      body: JSON.stringify({ org_id: 7, partner_id: 1 }),
      signal: controller.signal,
    });
    try {
      await started;
      controller.abort();
      await expect(request).rejects.toThrow();
      expect(await accessLine('access-abandoned')).toMatchObject({ path: '/crm/partners', status: 499, org_id: 7 });
      expect(await sample()).toBe(before + 1);
    } finally {
      releaseBalance();
    }
  });
});
