import { randomUUID } from 'node:crypto';
import { createDb, requestHash, type Knex } from '@bo/runtime';
import { refusal, startTestSystem, type TestSystem } from '../support/system';

const createBody = (name: string) =>
  ({ org_id: '1', userid: 'u1', action: 'create', partnername: name, partner_type: 'customer' }) as const;

/**
 * The gateway's idempotency store is a fast path; the service's record is the guarantee. These
 * break the fast path and show a key is never stuck and a write never runs twice.
 */
describe('Idempotency-Key when the gateway fast path fails', () => {
  let sys: TestSystem;
  let gatewayDb: Knex;
  beforeAll(async () => {
    sys = await startTestSystem({ services: ['partners'], env: { RPC_TIMEOUT_MS: '1000' } });
    gatewayDb = createDb(sys.databaseUrl, 'gateway', 2);
  });
  afterAll(async () => {
    await gatewayDb?.destroy();
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

  it('lets a retry take over a key claimed by a gateway that died mid-request, once its lease ends', async () => {
    const name = `Orphaned ${randomUUID().slice(0, 8)}`;
    const key = randomUUID();
    const body = createBody(name);
    // What a gateway killed between its claim and the reply leaves behind.
    await gatewayDb('idempotency_keys').insert({
      org_id: 1,
      key,
      operation: 'partners.partner.create',
      request_hash: requestHash('partners.partner.create', body),
      lease_until: gatewayDb.raw(`now() + interval '1 second'`),
    });
    expect(await refusedOnce(name, key)).toMatchObject({ status: 409, code: 'idempotency_conflict', idempotencyKey: key });
    // The client retries a 409 with the same key and body until the lease ends (bounded: 25 tries 200 ms apart).
    const patient = sys.clientOf(1, { retry: { attempts: 25, baseDelayMs: 200, maxDelayMs: 200, jitter: false } });
    const after = await patient.partners.partner.create(body, { idempotencyKey: key });
    expect(after.partner.partnername).toBe(name);
    expect(await named(name)).toHaveLength(1);
    // Another body under the key is still refused.
    expect(await refusedOnce('Else', key)).toMatchObject({ status: 400, code: 'idempotency_conflict' });
  });

  it('answers 200 when the fast path cannot record the answer, and a retry replays the service record', async () => {
    await gatewayDb.raw(`create or replace function gateway.refuse_completion() returns trigger language plpgsql as $$
      begin if new.completed_at is not null then raise exception 'disk full'; end if; return new; end $$`);
    await gatewayDb.raw(
      'create trigger refuse_completion before update on gateway.idempotency_keys for each row execute function gateway.refuse_completion()',
    );
    try {
      const name = `Unrecorded ${randomUUID().slice(0, 8)}`;
      const key = randomUUID();
      const first = await sys.client.partners.partner.create(createBody(name), { idempotencyKey: key });
      expect(first.partner.partnername).toBe(name);
      // The gateway gave up its lease, so the retry goes to the service, whose record answers it.
      const replay = await sys.client.partners.partner.create(createBody(name), { idempotencyKey: key });
      expect(replay).toEqual(first);
      expect(await named(name)).toHaveLength(1);
    } finally {
      await gatewayDb.raw('drop trigger refuse_completion on gateway.idempotency_keys');
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
