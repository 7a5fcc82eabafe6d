import { randomUUID } from 'node:crypto';
import { createDb, type Knex } from '@bo/runtime';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

const createBody = (name: string) =>
  ({ org_id: '1', userid: 'u1', action: 'create', partnername: name, partner_type: 'customer' }) as const;

/**
 * An Idempotency-Key through the gateway, whose guarantee lives in the service that takes the effect:
 * a key is never stuck, a twin still running is answered 409, and a write never runs twice.
 */
describe('Idempotency-Key through the gateway', () => {
  let sys: TestSystem;
  let partnersDb: Knex;
  beforeAll(async () => {
    sys = await startTestSystem({ services: ['partners'], env: { RPC_TIMEOUT_MS: '1000' } });
    partnersDb = createDb(sys.databaseUrl, 'partners', 2);
  });
  afterAll(async () => {
    await partnersDb?.destroy();
    await sys?.stop();
  });

  const named = async (name: string) => (await sys.client.partners.partner.list({ org_id: '1', search: name })).partners;
  /** Sends the create once (no retries: these tests are about the answers themselves) and expects it refused. */
  const refusedOnce = (name: string, idempotencyKey: string) =>
    refusal(sys.clientOf(1, { retry: false }).partners.partner.create(createBody(name), { idempotencyKey }));

  it('answers a write without a key with the key it was recorded under, and a retry with it replays', async () => {
    const name = `Keyless ${randomUUID().slice(0, 8)}`;
    const first = await sys.post('/crm/editpatner', createBody(name));
    const key = first.raw.headers.get('idempotency-key');
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    const retried = await sys.client.partners.partner.create(createBody(name), { idempotencyKey: key! });
    expect(retried).toEqual(first.body);
    expect(await named(name)).toHaveLength(1);
  });

  it('refuses a key that is not 1 to 255 printable ASCII characters, changing nothing', async () => {
    for (const key of ['x'.repeat(256), 'tab\there', 'ünïcode']) {
      const r = await sys.post('/crm/editpatner', createBody(`Refused ${key.length}`), { headers: { 'Idempotency-Key': key } });
      expect([key, r.statusCode, r.body.errors?.[0]?.field]).toEqual([key, 400, 'Idempotency-Key']);
    }
    expect(await named('Refused')).toEqual([]);
  });

  it("answers 409 to a twin while the first request with its key still runs, then the first one's result", async () => {
    const name = `Twin ${randomUUID().slice(0, 8)}`;
    const key = randomUUID();
    const body = createBody(name);
    // The first request stops while it holds its key, before its record: the test holds, uncommitted,
    // a row of the key's record that the first one's insert must wait for.
    const table = await partnersDb.transaction();
    try {
      await table.raw(
        `insert into idempotency.operation_keys (org_id, key, operation, request_hash, status, reply) values (1, ?, 'held by the test', '', 0, '')`,
        [key],
      );
      const first = sys.client.partners.partner.create(body, { idempotencyKey: key });
      await eventually(async () => {
        const { rows } = await partnersDb.raw<{ rows: Array<{ n: number }> }>(
          `select count(*)::int as n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())`,
        );
        expect(rows[0]!.n).toBe(1);
      });
      expect(await refusedOnce(name, key)).toMatchObject({ status: 409, code: 'idempotency_conflict', idempotencyKey: key });
      await table.rollback();
      const created = await first;
      expect(created.partner.partnername).toBe(name);
      expect(await sys.client.partners.partner.create(body, { idempotencyKey: key })).toEqual(created);
      expect(await named(name)).toHaveLength(1);
      // Another body under the key is refused.
      expect(await refusedOnce('Else', key)).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    } finally {
      if (!table.isCompleted()) await table.rollback();
    }
  });

  it('replays after a 5xx whose outcome was unknown: the retry is forwarded and answered once', async () => {
    await sys.system.stopService('partners');
    const name = `Unknown ${randomUUID().slice(0, 8)}`;
    const key = randomUUID();
    expect(await refusedOnce(name, key)).toMatchObject({ status: 504, code: 'outcome_unknown', idempotencyKey: key });
    await sys.system.startService('partners');
    const retried = await sys.client.partners.partner.create(createBody(name), { idempotencyKey: key });
    expect(retried.partner.partnername).toBe(name);
    const again = await sys.client.partners.partner.create(createBody(name), { idempotencyKey: key });
    expect(again).toEqual(retried);
    expect(await named(name)).toHaveLength(1);
  });
});
