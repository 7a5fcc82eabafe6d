import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import * as testing from '@bo/testkit';
import { eventually, startTestSystem, type TestSystem } from '../support/system';

/**
 * Prometheus metrics: the gateway serves /metrics on its own port (here, as in the single-process
 * mode, for every service of its process); a service process serves it on METRICS_PORT. Partners
 * runs as its own built process (as in docker compose), the rest of the system in this one.
 */
describe('metrics', () => {
  let sys: TestSystem;
  let partners: ChildProcess;
  let partnersMetrics: string;
  let output = '';

  beforeAll(async () => {
    sys = await startTestSystem({
      services: ['catalog', 'sales', 'invoicing'],
      env: { HEALTH_SERVICES: 'partners,catalog,sales,invoicing' },
    });
    const port = await freePort();
    partnersMetrics = `http://127.0.0.1:${port}/metrics`;
    partners = spawn(process.execPath, [join(__dirname, '../../services/partners/dist/main.js')], {
      env: {
        ...process.env,
        DATABASE_URL: sys.databaseUrl,
        AMQP_URL: await testing.testAmqpUrl(),
        BUS_PREFIX: sys.system.config.BUS_PREFIX,
        METRICS_PORT: String(port),
        LOG_LEVEL: 'warn',
        OUTBOX_POLL_MS: '200',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    partners.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    partners.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    // Up once it answers RPCs through the gateway and serves its metrics.
    await eventually(
      async () => {
        const health = await fetch(`${sys.url}/health`);
        expect(await health.json()).toMatchObject({ services: { partners: 'ok' } });
        expect((await fetch(partnersMetrics)).status).toBe(200);
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
  }, 60_000);
  afterAll(async () => {
    if (partners && partners.exitCode === null) {
      const exited = new Promise((r) => partners.once('exit', r));
      partners.kill('SIGTERM');
      await exited;
    }
    await sys?.stop();
  });

  const scrape = async (url: string) => {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };
  /** A sample's value, by metric name and exact labels; 0 when absent. */
  const value = (text: string, name: string, labels: Record<string, string>): number => {
    const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
    for (const line of text.split('\n')) {
      const m = /^([a-z_:]+)\{([^}]*)\} (\S+)$/.exec(line);
      if (!m || m[1] !== name) continue;
      const have = m[2]!.split(/,(?=[a-z_]+=")/);
      if (wanted.every((w) => have.includes(w))) return Number(m[3]);
    }
    return 0;
  };

  it('moves the HTTP, RPC, handler, event, outbox and pool metrics of the gateway and of a service process after a request', async () => {
    const gatewayBefore = await scrape(`${sys.url}/metrics`);
    const partnersBefore = await scrape(partnersMetrics);
    const http = { service: 'gateway', method: 'POST', route: '/crm/editpatner', status: '200' };
    const rpc = { service: 'gateway', operation: 'partners.partner.create', outcome: 'ok' };
    const handler = { service: 'partners', operation: 'partners.partner.create', outcome: 'ok' };
    const consumed = { service: 'sales', consumer: 'sales.partner-directory', outcome: 'ok' };

    const created = await sys.post('/crm/editpatner', {
      org_id: '1',
      userid: 'u1',
      action: 'create',
      partnername: 'Measured Ltd',
      partner_type: 'customer',
    });
    expect(created.statusCode).toBe(200);

    await eventually(async () => {
      const gateway = await scrape(`${sys.url}/metrics`);
      expect(value(gateway, 'bo_http_request_duration_seconds_count', http)).toBe(
        value(gatewayBefore, 'bo_http_request_duration_seconds_count', http) + 1,
      );
      expect(value(gateway, 'bo_rpc_client_duration_seconds_count', rpc)).toBe(
        value(gatewayBefore, 'bo_rpc_client_duration_seconds_count', rpc) + 1,
      );
      // The services of this process report through the gateway's endpoint: sales consumed the partner's event.
      expect(value(gateway, 'bo_events_consumed_total', consumed)).toBeGreaterThan(
        value(gatewayBefore, 'bo_events_consumed_total', consumed),
      );
      expect(gateway).toMatch(/^bo_outbox_pending_events\{service="sales"\} \d+$/m);
      expect(gateway).toMatch(/^bo_db_pool_connections\{service="gateway",state="free"\} \d+$/m);
      expect(gateway).toMatch(/^process_resident_memory_bytes \d+/m);
    });
    await eventually(async () => {
      const partnersNow = await scrape(partnersMetrics);
      expect(value(partnersNow, 'bo_rpc_handler_duration_seconds_count', handler)).toBe(
        value(partnersBefore, 'bo_rpc_handler_duration_seconds_count', handler) + 1,
      );
      // Its partner.created event left through the outbox: published, and nothing left pending.
      expect(value(partnersNow, 'bo_events_published_total', { service: 'partners', outcome: 'ok' })).toBeGreaterThan(
        value(partnersBefore, 'bo_events_published_total', { service: 'partners', outcome: 'ok' }),
      );
      expect(partnersNow).toMatch(/^bo_outbox_pending_events\{service="partners"\} 0$/m);
      expect(partnersNow).toMatch(/^bo_outbox_oldest_pending_age_seconds\{service="partners"\} 0$/m);
      expect(partnersNow).toMatch(/^bo_db_pool_connections\{service="partners",state="used"\} \d+$/m);
      // Only its own process: no gateway HTTP series here.
      expect(partnersNow).not.toMatch(/^bo_http_request_duration_seconds_count\{/m);
    });
    expect(output).not.toMatch(/"level":(50|60)/);
  });

  it('serves nothing but /metrics on the metrics port', async () => {
    expect((await fetch(partnersMetrics.replace('/metrics', '/health'))).status).toBe(404);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}
