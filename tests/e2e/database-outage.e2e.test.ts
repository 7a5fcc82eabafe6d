import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { startTestSystem, type TestSystem } from '../support/system';

/**
 * PostgreSQL dropping every connection of the system (what a restart does to its clients) is an
 * outage: 503, never 500, and the processes recover by themselves. A careful client retrying with
 * the same Idempotency-Key gets each write done exactly once.
 */
describe('a database outage', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ env: { RPC_TIMEOUT_MS: '3000' } });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  /** Terminates every connection to the system's database, as a server restart does to its clients. */
  const dropConnections = async (): Promise<number> => {
    const admin = new pg.Client({ connectionString: sys.databaseUrl });
    await admin.connect();
    try {
      const { rows } = await admin.query(
        'select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      return rows[0].n as number;
    } finally {
      await admin.end();
    }
  };

  it('answers 503 (never 500) while connections are cut, and retried writes take effect once', async () => {
    const statuses: number[] = [];
    /**
     * A careful client (docs/reliability.md), as the typed client is: the same key and body again
     * after a 503/504, and after a 409 (the key is still claimed: a lease the outage kept the gateway
     * from releasing runs out within 2 x RPC_TIMEOUT_MS + 1 s), until a final answer; bounded.
     * Every answer's status is kept.
     */
    const client = sys.clientOf(1, {
      retry: { attempts: 150, baseDelayMs: 100, maxDelayMs: 100, jitter: false },
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        statuses.push(res.status);
        return res;
      },
    });
    const write = (name: string) => client.partners.partner.create({ org_id: '1', partnername: name, partner_type: 'customer' });
    // Connections cut every 50 ms until eight cuts found some to cut and a write was caught by one
    // (a 503), under 8 writers that keep sending partners (5 each at least) until the cuts are over,
    // so writes are in flight at every cut. Counted, not timed: on a loaded machine two seconds held
    // fewer cuts than that; bounded by 20 s.
    const CUTS = 8;
    let cuts = 0;
    let cutting = true;
    const giveUp = Date.now() + 20_000;
    const cutter = (async () => {
      while ((cuts < CUTS || !statuses.includes(503)) && Date.now() < giveUp) {
        cuts += (await dropConnections()) > 0 ? 1 : 0;
        await new Promise((res) => setTimeout(res, 50));
      }
      cutting = false;
    })();
    const names: string[] = [];
    const written: string[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; i < 5 || cutting; i++) {
          const name = `Outage ${w}.${i} ${randomUUID().slice(0, 8)}`;
          names.push(name);
          written.push((await write(name)).partner.partnername);
        }
      }),
    );
    await cutter;
    expect(cuts).toBeGreaterThanOrEqual(CUTS);
    expect(statuses.filter((s) => s >= 500 && s !== 503 && s !== 504)).toEqual([]);
    expect(statuses.some((s) => s === 503)).toBe(true);
    // Every write succeeded in the end (a final refusal would have thrown), and exactly once, whatever the retries.
    expect(written.sort()).toEqual([...names].sort());
    const listed: string[] = [];
    for (let page = 1; ; page++) {
      const r = await sys.client.partners.partner.list({ org_id: '1', search: 'Outage', page_size: 100, page_number: page });
      listed.push(...r.partners.map((p) => p.partnername));
      if (!r.pagination.has_next) break;
    }
    expect(listed.sort()).toEqual([...names].sort());
  }, 60_000);
});
