import { randomUUID } from 'node:crypto';
import { ApiError, createClient, type RetryNotice } from '@bo/client';
import { startTestSystem, type TestSystem } from '../support/system';

/** The typed client (packages/client) against the real gateway and services. */
describe('the typed client through the gateway', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ services: ['partners'], env: { RPC_TIMEOUT_MS: '800' } });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const named = async (name: string) => (await sys.client.partners.partner.list({ org_id: 1, search: name })).partners;

  it('creates and reads with typed requests and replies', async () => {
    const name = `Typed ${randomUUID().slice(0, 8)}`;
    const { partner } = await sys.client.partners.partner.create({
      org_id: 1,
      userid: 'u1',
      partnername: name,
      partner_type: 'customer',
      credit_limit: '1500.50',
    });
    expect(partner).toMatchObject({ id: expect.any(Number), partnername: name, credit_limit: 1500.5 });
    const balance = await sys.client.partners.partner.balance({ org_id: '1', partner_id: partner.id });
    expect(balance.partner).toMatchObject({ id: partner.id, available_credit: 1500.5 });
    expect((await sys.client.call('partners.partner.list', { org_id: 1, search: name })).partners.map((p) => p.id)).toEqual([partner.id]);
  });

  it('throws a refusal as an ApiError with its code, field errors, request id and the key it sent', async () => {
    const error = await sys.client.partners.partner
      .create({ org_id: 1, partnername: ' ', partner_type: 'vendor' }, { idempotencyKey: 'client-e2e-refused' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'validation_failed',
      errors: [{ field: 'partnername', message: expect.any(String) }],
      requestId: expect.any(String),
      idempotencyKey: 'client-e2e-refused',
      attempts: 1,
    });
    const other = createClient({ baseUrl: sys.url, apiKey: sys.keys[2] });
    await expect(other.partners.partner.list({ org_id: 1 })).rejects.toMatchObject({ status: 403, code: 'forbidden' });
    await expect(createClient({ baseUrl: sys.url }).partners.partner.list({ org_id: 1 })).rejects.toMatchObject({
      status: 401,
      code: 'unauthorized',
    });
  });

  it('retries a write whose outcome was unknown with the same key and body, and it takes effect once', async () => {
    await sys.system.stopService('partners');
    let restarted = false;
    const retries: RetryNotice[] = [];
    const attempts: { key: unknown; body: unknown }[] = [];
    const client = sys.clientOf(1, {
      // The first answer (504 outcome_unknown: nobody served the request) reaches the client only once partners is back.
      fetch: async (input, init) => {
        attempts.push({ key: new Headers(init?.headers).get('idempotency-key'), body: init?.body });
        const res = await fetch(input, init);
        if (!restarted) {
          restarted = true;
          await sys.system.startService('partners');
        }
        return res;
      },
      retry: { attempts: 3, baseDelayMs: 50, onRetry: (r) => retries.push(r) },
    });
    const name = `Retried ${randomUUID().slice(0, 8)}`;
    const { partner } = await client.partners.partner.create({ org_id: 1, partnername: name, partner_type: 'customer' });
    expect(retries.map((r) => [r.attempt, r.reason])).toEqual([[2, '504 outcome_unknown']]);
    // The retry is safe only because it is the same request under the same key: a fresh key would create a second partner if the first had run.
    expect(attempts).toHaveLength(2);
    expect(attempts[0]?.key).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
    expect(attempts[1]).toEqual(attempts[0]);
    expect(JSON.parse(attempts[0]?.body as string)).toEqual({ org_id: 1, partnername: name, partner_type: 'customer', action: 'create' });
    expect((await named(name)).map((p) => p.id)).toEqual([partner.id]);
  });
});
