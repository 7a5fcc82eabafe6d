import { randomUUID } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createDb, createLogger, type Knex } from '@bo/runtime';
import { createTestDatabase, eventually, migratedTemplate, serviceMigrations, testPostgresUrl, type TestDatabase } from '@bo/testkit';
import { webhooksService } from '../src';
import { Dispatcher } from '../src/delivery/dispatcher';
import { secretBox } from '../src/key/secrets';
import { webhookSettingsSchema, type WebhookSettings } from '../src/settings';

/** A receiver on 127.0.0.1 that answers 200, or holds every request open (`hang`) until it closes. */
class Receiver {
  readonly received: Array<{ path: string; at: number }> = [];
  private readonly held: ServerResponse[] = [];
  private server?: Server;
  constructor(private readonly hang: boolean) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        this.received.push({ path: req.url ?? '', at: performance.now() });
        if (this.hang) this.held.push(res);
        else res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}${path}`;
  }

  /** Drops every request held: their attempts end with a connection error. */
  release(): void {
    this.server?.closeAllConnections();
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/**
 * The dispatcher (delivery/dispatcher.ts) over a real database, alone: it sleeps until a row it
 * could claim falls due (what it asks of PostgreSQL while there is none is measured from
 * PostgreSQL's own statistics), and it shares the delivery slots between organizations, so one
 * organization's receivers that hang leave the others' deliveries theirs.
 */
describe('the webhook dispatcher', () => {
  let database: TestDatabase;
  let db: Knex;
  let admin: pg.Client;
  const receivers: Receiver[] = [];
  const receiver = async (hang: boolean) => {
    const r = await new Receiver(hang).start();
    receivers.push(r);
    return r;
  };
  const base = {
    WEBHOOKS_SECRET_KEYS: 'test:a test key of thirty-two characters or more',
    WEBHOOKS_ALLOW_HTTP: '1',
    WEBHOOKS_ALLOW_PRIVATE: '1',
  };
  const settingsOf = (env: Record<string, string> = {}): WebhookSettings => webhookSettingsSchema.parse({ ...base, ...env });
  const log = createLogger('webhooks', process.env.TEST_LOG_LEVEL ?? 'silent');
  const relay = { kick: () => undefined };

  beforeAll(async () => {
    database = await createTestDatabase({ template: await migratedTemplate('webhooks', [serviceMigrations(webhooksService)]) });
    db = createDb(database.url, 'webhooks', 2);
    admin = new pg.Client({ connectionString: await testPostgresUrl() });
    await admin.connect();
  });
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.stop();
    await db.raw('delete from deliveries; delete from endpoints');
  });
  afterAll(async () => {
    await db?.destroy();
    await admin?.end();
    await database?.drop();
  });

  const endpoint = async (org: number, url: string, status: 'enabled' | 'disabled' = 'enabled') => {
    const [row] = await db('endpoints')
      .insert({
        org_id: org,
        url,
        events: JSON.stringify(['*']),
        secret: secretBox(settingsOf()).seal('whsec_test'),
        status,
        ...(status === 'disabled' ? { disabled_reason: 'gone', disabled_at: db.fn.now() } : {}),
      })
      .returning<Array<{ id: number }>>('id');
    return (row as { id: number }).id;
  };
  /** `n` deliveries to an endpoint, due `dueInSeconds` from now (negative: overdue, an old backlog). */
  const queue = async (org: number, endpointId: number, n: number, dueInSeconds = 0) => {
    const rows = Array.from({ length: n }, () => {
      const id = randomUUID();
      return {
        org_id: org,
        endpoint_id: endpointId,
        event_id: id,
        event_type: 'webhook.ping',
        payload: JSON.stringify({ id, type: 'webhook.ping', created_at: '2026-01-01T00:00:00', org_id: org, data: {} }),
        next_attempt_at: db.raw(`now() + make_interval(secs => ?)`, [dueInSeconds]),
      };
    });
    await db('deliveries').insert(rows);
  };
  const dispatcher = (pool: Knex, env: Record<string, string> = {}) => new Dispatcher(pool, log, relay, settingsOf(env));
  /** Every claim the dispatcher sends (its FOR UPDATE SKIP LOCKED statement), counted from knex's query events. */
  const countClaims = (pool: Knex) => {
    const claims = { n: 0 };
    pool.on('query', (q: { sql: string }) => {
      if (q.sql.includes('for update skip locked')) claims.n += 1;
    });
    return claims;
  };

  /** Transactions committed in the test database, as PostgreSQL counts them (each statement of a pool is one). */
  const committed = async () => {
    const name = new URL(database.url).pathname.slice(1);
    // A backend's counts reach the statistics when it exits at the latest: wait until none is left.
    await eventually(async () =>
      expect((await admin.query('select count(*)::int as n from pg_stat_activity where datname = $1', [name])).rows[0]).toEqual({ n: 0 }),
    );
    const { rows } = await admin.query<{ n: string }>('select xact_commit + xact_rollback as n from pg_stat_database where datname = $1', [
      name,
    ]);
    return Number(rows[0]?.n);
  };

  it("asks PostgreSQL about once a second while the only due rows are a disabled endpoint's", async () => {
    const gone = await endpoint(1, 'http://127.0.0.1:9/gone', 'disabled');
    await queue(1, gone, 5, -60);
    await db.destroy();
    try {
      const before = await committed();
      const pool = createDb(database.url, 'webhooks', 2);
      const claims = countClaims(pool);
      const d = dispatcher(pool);
      const started = performance.now();
      d.start();
      // The measure: five seconds of a dispatcher with nothing it could claim.
      await sleep(5000);
      await d.stop();
      const seconds = (performance.now() - started) / 1000;
      await pool.destroy();
      const statements = (await committed()) - before;
      // A pass a second: a claim and a look at when the next row it could claim falls due, two
      // statements (and its pool's connections setting their search path). Unfixed, it passed every 5 ms.
      const passes = Math.ceil(seconds) + 1;
      expect(claims.n).toBeLessThanOrEqual(passes);
      expect(statements).toBeLessThanOrEqual(2 * passes + 4);
    } finally {
      db = createDb(database.url, 'webhooks', 2);
    }
  });

  it('sleeps while an endpoint holds all its slots, whatever its backlog due', async () => {
    const stuck = await receiver(true);
    const e = await endpoint(1, stuck.url('/stuck'));
    await queue(1, e, 10, -60);
    const claims = countClaims(db);
    const d = dispatcher(db, { WEBHOOKS_TIMEOUT_MS: '30000' });
    d.start();
    try {
      await eventually(() => expect(stuck.received).toHaveLength(4));
      const before = claims.n;
      const started = performance.now();
      await sleep(3000);
      const seconds = (performance.now() - started) / 1000;
      expect(claims.n - before).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
      expect(stuck.received).toHaveLength(4);
    } finally {
      stuck.release();
      await d.stop();
    }
  });

  it("delivers another organization's webhooks at once while one organization's eight endpoints hang", async () => {
    const stuck = await receiver(true);
    const quick = await receiver(false);
    const hanging = await Promise.all(Array.from({ length: 8 }, (_, i) => endpoint(1, stuck.url(`/org1/${i}`))));
    for (const e of hanging) await queue(1, e, 10, -60);
    const other = await endpoint(2, quick.url('/org2'));
    await queue(2, other, 5);
    const d = dispatcher(db);
    d.start();
    try {
      await eventually(async () =>
        expect(await db('deliveries').where({ endpoint_id: other }).pluck('status')).toEqual(Array(5).fill('delivered')),
      );
      // Organization 1 holds its share (16 of the 32 slots), none of its attempts ended (10 s timeout).
      expect(stuck.received).toHaveLength(16);
      expect(new Set(await db('deliveries').where({ org_id: 1 }).pluck('attempts'))).toEqual(new Set([0]));
    } finally {
      stuck.release();
      await d.stop();
    }
  });

  it('gives a slot freed by a timeout to an organization with none in flight before older backlogs', async () => {
    const stuck = await receiver(true);
    const quick = await receiver(false);
    const [a, c] = [await endpoint(1, stuck.url('/a')), await endpoint(3, stuck.url('/c'))];
    await queue(1, a, 6, -60);
    await queue(3, c, 6, -60);
    // Four slots, two per organization and endpoint, attempts of one second: organizations 1 and 3 take all four.
    const d = dispatcher(db, {
      WEBHOOKS_MAX_IN_FLIGHT: '4',
      WEBHOOKS_PER_ORGANIZATION: '2',
      WEBHOOKS_PER_ENDPOINT: '2',
      WEBHOOKS_TIMEOUT_MS: '1000',
    });
    d.start();
    try {
      await eventually(() => expect(stuck.received).toHaveLength(4));
      const b = await endpoint(2, quick.url('/b'));
      await queue(2, b, 1);
      const queued = performance.now();
      await eventually(() => expect(quick.received).toHaveLength(1), { timeoutMs: 10_000 });
      // Its delivery went in the round after the first timeouts, not after the older backlogs were worked off.
      expect(stuck.received.filter((r) => r.at < (quick.received[0] as { at: number }).at).length).toBeLessThanOrEqual(7);
      expect(performance.now() - queued).toBeLessThan(2500);
    } finally {
      stuck.release();
      await d.stop();
    }
  });
});
