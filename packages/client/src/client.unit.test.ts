import { corsHeaders, operations, operationsByName } from '@bo/contracts';
import { ApiError, createClient, NetworkError, type ClientOptions, type RetryNotice } from './index';
import { methodPath } from './client';
import { attemptWaitMs } from './transport';

interface Sent {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** `hang`: no answer ever comes, as on a blackholed connection; only the request's signal ends it. */
type Answer =
  { status: number; body: Record<string, unknown>; headers?: Record<string, string> } | { status: number; text: string } | Error | 'hang';

/** A fetch that records what it was sent and answers from a script, one answer per call. */
function fakeFetch(...script: Answer[]) {
  const sent: Sent[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    sent.push({
      url,
      headers: { ...(init?.headers as Record<string, string>) },
      body: JSON.parse(init?.body as string) as Record<string, unknown>,
    });
    const answer = script.shift();
    if (answer === undefined) throw new Error('the script has no answer left');
    if (answer instanceof Error) throw answer;
    if (answer === 'hang') return hangUntilAborted(init?.signal);
    if ('text' in answer) return new Response(answer.text, { status: answer.status });
    const envelope = { statusCode: answer.status, headers: corsHeaders, body: answer.body };
    return new Response(JSON.stringify(envelope), {
      status: answer.status,
      headers: { 'x-request-id': `req-${sent.length}`, ...answer.headers },
    });
  };
  return { fetch, sent };
}

function hangUntilAborted(signal: AbortSignal | null | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (!signal) return;
    signal.addEventListener('abort', () => reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason))), {
      once: true,
    });
  });
}

const partner = { id: 7, orgid: 1, partnername: 'Acme' };
const ok = (body: Record<string, unknown> = { message: 'ok', partner }): Answer => ({ status: 200, body });
const refusal = (status: number, code: string, extra: Record<string, unknown> = {}): Answer => ({
  status,
  body: { message: `refused: ${code}`, code, ...extra },
});
const fetchFailed = () => new TypeError('fetch failed');

function clientWith(fake: ReturnType<typeof fakeFetch>, options: Partial<ClientOptions> = {}) {
  const retries: RetryNotice[] = [];
  const client = createClient({
    baseUrl: 'http://gateway.test/',
    apiKey: 'bo_key',
    fetch: fake.fetch,
    retry: { baseDelayMs: 1, maxDelayMs: 4, jitter: false, onRetry: (r) => retries.push(r) },
    ...options,
  });
  return { client, retries };
}

const createBody = { org_id: 1, partnername: 'Acme', partner_type: 'customer' } as const;

describe('the typed client', () => {
  it('has one method per routed operation of the catalogue, named after it, and none for internal ones', () => {
    const { client } = clientWith(fakeFetch());
    const methodOf = (name: string) => methodPath(name).reduce<any>((node, segment) => node?.[segment], client);
    for (const op of operations) {
      expect([op.name, typeof methodOf(op.name)]).toEqual([op.name, op.paths.length > 0 ? 'function' : 'undefined']);
    }
    expect(methodPath('invoicing.invoice.register_payment')).toEqual(['invoicing', 'invoice', 'registerPayment']);
    expect(typeof client.invoicing.invoice.registerPayment).toBe('function');
    // @ts-expect-error internal operations have no method
    expect(client.partners.partner.get).toBeUndefined();
  });

  it("posts to the operation's canonical path with the bearer key, the selector filled in, and returns the reply body", async () => {
    const fake = fakeFetch(ok(), ok({ message: 'Product deleted successfully' }), ok({ message: 'listed', partners: [], pagination: {} }));
    const { client } = clientWith(fake);
    const created = await client.partners.partner.create(createBody);
    expect(created.partner.id).toBe(7);
    await client.catalog.product.delete({ org_id: 1, product_id: 3 });
    await client.call('partners.partner.list', { org_id: '1' }, { requestId: 'mine-1' });
    expect(fake.sent.map((s) => [s.url, s.body])).toEqual([
      ['http://gateway.test/crm/editpatner', { ...createBody, action: 'create' }],
      ['http://gateway.test/inventory/editproduct', { org_id: 1, product_id: 3, delete: true }],
      ['http://gateway.test/crm/partners', { org_id: '1' }],
    ]);
    expect(fake.sent[0]?.headers).toMatchObject({ authorization: 'Bearer bo_key', 'content-type': 'application/json' });
    expect(fake.sent[2]?.headers['x-request-id']).toBe('mine-1');
  });

  it.each([
    ['an edit (product_id present)', { org_id: 1, name: 'Lamp', product_id: 3 }, 'catalog.product.edit', /with product_id/],
    ['a delete (delete: true)', { org_id: 1, name: 'Lamp', delete: true }, 'catalog.product.delete', /delete: true/],
    ['another action', { org_id: 1, name: 'Lamp', action: 'create_variant' }, 'catalog.variant.create', /action "create_variant"/],
  ])('refuses, sending nothing, a create whose body would select %s on its shared path', async (_what, body, selected, selector) => {
    const fake = fakeFetch(ok());
    const { client } = clientWith(fake);
    const call = client.catalog.product.create(body);
    await expect(call).rejects.toThrow(TypeError);
    await expect(call).rejects.toThrow(selected);
    await expect(call).rejects.toThrow(selector);
    expect(fake.sent).toHaveLength(0);
  });

  it('sends a fresh UUID Idempotency-Key with each write, the caller’s when given, and none with a read', async () => {
    const fake = fakeFetch(ok(), ok(), ok(), ok({ message: 'listed', partners: [], pagination: {} }));
    const { client } = clientWith(fake);
    await client.partners.partner.create(createBody);
    await client.partners.partner.create(createBody);
    await client.partners.partner.create(createBody, { idempotencyKey: 'my-key' });
    await client.partners.partner.list({ org_id: 1 });
    const keys = fake.sent.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).not.toBe(keys[0]);
    expect(keys.slice(2)).toEqual(['my-key', undefined]);
  });

  it('throws a refusal as an ApiError with status, code, field errors, request id and key, and never retries it', async () => {
    const fake = fakeFetch(refusal(400, 'validation_failed', { errors: [{ field: 'partnername', message: 'partnername is required' }] }));
    const { client, retries } = clientWith(fake);
    const error = await client.partners.partner.create(createBody, { idempotencyKey: 'k-400' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'validation_failed',
      message: 'refused: validation_failed',
      errors: [{ field: 'partnername', message: 'partnername is required' }],
      requestId: 'req-1',
      idempotencyKey: 'k-400',
      operation: 'partners.partner.create',
      attempts: 1,
    });
    expect([fake.sent.length, retries]).toEqual([1, []]);
  });

  it.each([
    ['a 422 idempotency_key_reused (the key was used for another request)', refusal(422, 'idempotency_key_reused')],
    ['a 404', refusal(404, 'not_found')],
    ['a 500 (a bug: repeating it does not help)', refusal(500, 'internal_error', { request_id: 'req-bug' })],
    ['a 403', refusal(403, 'forbidden')],
  ])('does not retry a write answered with %s', async (_what, answer) => {
    const fake = fakeFetch(answer);
    const { client } = clientWith(fake);
    await expect(client.partners.partner.create(createBody)).rejects.toBeInstanceOf(ApiError);
    expect(fake.sent).toHaveLength(1);
  });

  it('uses the request id of the error body when there is one (5xx answers carry it)', async () => {
    const { client } = clientWith(fakeFetch(refusal(500, 'internal_error', { request_id: 'quote-me' })));
    await expect(client.partners.partner.list({ org_id: 1 })).rejects.toMatchObject({ status: 500, requestId: 'quote-me', errors: [] });
  });

  it.each([
    ['504 outcome_unknown', refusal(504, 'outcome_unknown')],
    ['503 outcome_unknown (connection lost)', refusal(503, 'outcome_unknown')],
    ['503 service_unavailable', refusal(503, 'service_unavailable')],
    ['409 idempotency_conflict (the key is still in flight)', refusal(409, 'idempotency_conflict')],
    ['a network error', fetchFailed()],
    ['a 502 from a proxy, not an envelope', { status: 502, text: '<html>Bad Gateway</html>' }],
  ])('retries a write after %s with the same key and body until it succeeds', async (_what, answer) => {
    const fake = fakeFetch(answer, answer, ok());
    const { client, retries } = clientWith(fake);
    const created = await client.partners.partner.create(createBody);
    expect(created.partner.partnername).toBe('Acme');
    expect(fake.sent).toHaveLength(3);
    const key = fake.sent[0]?.headers['idempotency-key'];
    expect(fake.sent.map((s) => [s.headers['idempotency-key'], s.body])).toEqual(
      fake.sent.map(() => [key, { ...createBody, action: 'create' }]),
    );
    expect(retries.map((r) => [r.operation, r.attempt])).toEqual([
      ['partners.partner.create', 2],
      ['partners.partner.create', 3],
    ]);
  });

  it('retries a read after a network error or a 503, but not after a 409', async () => {
    const list = { message: 'listed', partners: [], pagination: {} };
    const fake = fakeFetch(fetchFailed(), refusal(503, 'service_unavailable'), ok(list), refusal(409, 'idempotency_conflict'));
    const { client, retries } = clientWith(fake);
    expect(await client.partners.partner.list({ org_id: 1 })).toEqual(list);
    expect(retries.map((r) => r.reason)).toEqual(['network', '503 service_unavailable']);
    await expect(client.partners.partner.list({ org_id: 1 })).rejects.toMatchObject({ status: 409 });
    expect(fake.sent).toHaveLength(4);
  });

  const rateLimited = (retryAfter: string): Answer => ({
    status: 429,
    body: { message: 'over the rate limit', code: 'rate_limited' },
    headers: { 'retry-after': retryAfter, ratelimit: '"reads";r=0;t=1' },
  });

  it('waits the Retry-After of a 429 rate_limited before sending a read again', async () => {
    const list = { message: 'listed', partners: [], pagination: {} };
    const fake = fakeFetch(rateLimited('1'), ok(list));
    const { client, retries } = clientWith(fake);
    const started = Date.now();
    expect(await client.partners.partner.list({ org_id: 1 })).toEqual(list);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(retries.map((r) => [r.reason, r.delayMs])).toEqual([['429 rate_limited', 1000]]);
  });

  it('sends a write refused with 429 rate_limited again with the same key and body, after its Retry-After (an HTTP-date too)', async () => {
    const fake = fakeFetch(rateLimited(new Date(Date.now() - 1000).toUTCString()), ok());
    const { client, retries } = clientWith(fake);
    await client.partners.partner.create(createBody, { idempotencyKey: 'k-limited' });
    expect(fake.sent.map((s) => [s.headers['idempotency-key'], s.body])).toEqual([
      ['k-limited', { ...createBody, action: 'create' }],
      ['k-limited', { ...createBody, action: 'create' }],
    ]);
    expect(retries.map((r) => r.reason)).toEqual(['429 rate_limited']);
  });

  it('throws a 429 at once when its Retry-After is longer than maxRetryAfterMs, saying how long to wait', async () => {
    const fake = fakeFetch(rateLimited('120'));
    const { client } = clientWith(fake, { retry: { maxRetryAfterMs: 5000 } });
    const error = await client.partners.partner.list({ org_id: 1 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfterMs: 120_000, attempts: 1 });
    expect(fake.sent).toHaveLength(1);
  });

  it('gives up after the attempts of its policy, backing off exponentially up to the cap, and throws the last answer', async () => {
    const busy = refusal(504, 'outcome_unknown');
    const fake = fakeFetch(busy, busy, busy, busy, busy);
    const delays: number[] = [];
    const { client } = clientWith(fake, {
      retry: { attempts: 5, baseDelayMs: 1, maxDelayMs: 4, jitter: false, onRetry: (r) => delays.push(r.delayMs) },
    });
    const error = await client.partners.partner.create(createBody, { idempotencyKey: 'k-unknown' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 504, code: 'outcome_unknown', attempts: 5, idempotencyKey: 'k-unknown' });
    expect(delays).toEqual([1, 2, 4, 4]);
    expect(fake.sent).toHaveLength(5);
  });

  it('throws a NetworkError carrying the key when no answer ever came, so the caller can retry later', async () => {
    const fake = fakeFetch(fetchFailed(), fetchFailed());
    const { client } = clientWith(fake, { retry: { attempts: 2, baseDelayMs: 1, jitter: false } });
    const error = await client.partners.partner.create(createBody).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({
      attempts: 2,
      idempotencyKey: fake.sent[0]?.headers['idempotency-key'],
      operation: 'partners.partner.create',
    });
    expect((error as NetworkError).cause).toBeInstanceOf(TypeError);
  });

  it('gives up on an attempt that gets no answer within timeoutMs and retries the write with the same key and body', async () => {
    const fake = fakeFetch('hang', ok());
    const { client, retries } = clientWith(fake, { timeoutMs: 20 });
    const created = await client.partners.partner.create(createBody, { idempotencyKey: 'k-blackholed' });
    expect(created.partner.id).toBe(7);
    expect(fake.sent.map((s) => [s.headers['idempotency-key'], s.body])).toEqual([
      ['k-blackholed', { ...createBody, action: 'create' }],
      ['k-blackholed', { ...createBody, action: 'create' }],
    ]);
    expect(retries.map((r) => r.reason)).toEqual(['network']);
  });

  it('throws a NetworkError saying the attempts timed out when none is answered', async () => {
    const fake = fakeFetch('hang', 'hang');
    const { client } = clientWith(fake, { timeoutMs: 20, retry: { attempts: 2, baseDelayMs: 1, jitter: false } });
    const error = await client.partners.partner.list({ org_id: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ attempts: 2, message: expect.stringMatching(/no answer within 20 ms/) });
  });

  it('waits for an operation of a long wait of its own longer than the gateway does, so the gateway answers first', () => {
    expect(attemptWaitMs(operationsByName.get('partners.partner.list')!, 30_000)).toBe(30_000);
    expect(attemptWaitMs(operationsByName.get('invoicing.inbound.import')!, 30_000)).toBe(70_000);
    expect(attemptWaitMs(operationsByName.get('invoicing.invoice.render')!, 30_000)).toBe(40_000);
    expect(attemptWaitMs(operationsByName.get('invoicing.invoice.render')!, 90_000)).toBe(90_000);
  });

  it('does not retry an attempt the caller aborted while it waited for the answer', async () => {
    const controller = new AbortController();
    const fake = fakeFetch('hang', ok());
    const { client } = clientWith(fake, { timeoutMs: 60_000 });
    const call = client.partners.partner.create(createBody, { signal: controller.signal });
    controller.abort(new Error('caller gave up'));
    await expect(call).rejects.toThrow('caller gave up');
    expect(fake.sent).toHaveLength(1);
  });

  it.each([
    ['attempts 0', { attempts: 0 }],
    ['attempts NaN', { attempts: Number.NaN }],
    ['attempts Infinity', { attempts: Number.POSITIVE_INFINITY }],
    ['a negative baseDelayMs', { baseDelayMs: -1 }],
    ['maxDelayMs NaN', { maxDelayMs: Number.NaN }],
  ])('refuses at construction a retry policy with %s', (_what, retry) => {
    expect(() => createClient({ baseUrl: 'http://gateway.test', retry })).toThrow(TypeError);
  });

  it('keeps the defaults for retry fields given as undefined', async () => {
    const busy = refusal(503, 'service_unavailable');
    const fake = fakeFetch(busy, busy, busy, busy, ok());
    const delays: number[] = [];
    const { client } = clientWith(fake, {
      retry: { attempts: undefined, baseDelayMs: 1, maxDelayMs: undefined, jitter: false, onRetry: (r) => delays.push(r.delayMs) },
    });
    await expect(client.partners.partner.create(createBody)).rejects.toMatchObject({ status: 503, attempts: 4 });
    expect(delays).toEqual([1, 2, 4]);
  });

  it.each([0, -5, Number.NaN])('refuses a timeoutMs of %s at construction', (timeoutMs) => {
    expect(() => createClient({ baseUrl: 'http://gateway.test', timeoutMs })).toThrow(TypeError);
  });

  it('sends every call once when retries are off', async () => {
    const fake = fakeFetch(refusal(503, 'service_unavailable'));
    const { client } = clientWith(fake, { retry: false });
    await expect(client.partners.partner.list({ org_id: 1 })).rejects.toMatchObject({ status: 503, attempts: 1 });
    expect(fake.sent).toHaveLength(1);
  });

  it('stops retrying when the caller aborts, with the abort reason', async () => {
    const controller = new AbortController();
    const fake = fakeFetch(refusal(503, 'service_unavailable'), ok());
    const client = createClient({
      baseUrl: 'http://gateway.test',
      fetch: fake.fetch,
      retry: { attempts: 3, baseDelayMs: 60_000, jitter: false, onRetry: () => controller.abort(new Error('caller gave up')) },
    });
    await expect(client.partners.partner.list({ org_id: 1 }, { signal: controller.signal })).rejects.toThrow('caller gave up');
    expect(fake.sent).toHaveLength(1);
  });

  it('reports an answer that is not the envelope as invalid_response', async () => {
    const { client } = clientWith(fakeFetch({ status: 200, text: 'not json' }));
    await expect(client.partners.partner.list({ org_id: 1 })).rejects.toMatchObject({ status: 200, code: 'invalid_response' });
  });
});
