import { AmqpBus, createDb, createLogger } from '@bo/runtime';
import { revokeApiKey } from '@bo/gateway';
import { corsHeaders } from '@bo/contracts';
import { createClient } from '@bo/client';
import { refusal, startTestSystem, type TestSystem } from '../support/system';

const createBody = (name: string) =>
  ({ org_id: '1', userid: 'u1', action: 'create', partnername: name, partner_type: 'customer' }) as const;

describe('gateway: envelope, HTTP rules and auth', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    // Only partners runs, so catalog operations show what a missing service looks like.
    sys = await startTestSystem({ services: ['partners'], env: { BODY_LIMIT_BYTES: '4096' } });
  });
  afterAll(async () => {
    await sys?.stop();
  });
  const partnerCount = async () => (await sys.client.partners.partner.list({ org_id: '1', page_size: 100 })).pagination.total_items;

  it('wraps every answer in the envelope, with HTTP status = statusCode and real CORS headers', async () => {
    const ok = await sys.post('/crm/partners', { org_id: '1' });
    expect(ok.httpStatus).toBe(200);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers).toEqual(corsHeaders);
    expect(ok.raw.headers.get('access-control-allow-origin')).toBe('*');
    expect(ok.raw.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    // A browser client may read the ids and the retry advice (Retry-After, RateLimit) of an answer.
    expect(ok.raw.headers.get('access-control-expose-headers')?.split(/,\s*/)).toEqual(
      expect.arrayContaining(['Idempotency-Key', 'X-Request-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy']),
    );
    expect(ok.raw.headers.get('x-request-id')).toMatch(/[\w-]{8,}/);
    expect(ok.raw.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const mine = await fetch(`${sys.url}/crm/partners`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sys.keys[1]}`, 'x-request-id': 'client-chosen.id:1' },
      body: JSON.stringify({ org_id: '1' }),
    });
    expect(mine.headers.get('x-request-id')).toBe('client-chosen.id:1');
    const text = await mine.text();
    expect(Number(mine.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    const bad = await sys.post('/crm/editpatner', { org_id: '1', action: 'create' });
    expect([bad.httpStatus, bad.statusCode]).toEqual([400, 400]);
    expect(bad.headers).toEqual(corsHeaders);
  });

  it("forwards a service's multi-byte body byte for byte, its Content-Length counting bytes, not characters", async () => {
    const name = 'Zoë Ünïcode ✓ 😀 "quoted" \\ back';
    const created = await sys.post('/crm/editpatner', {
      org_id: '1',
      userid: '1',
      action: 'create',
      partnername: name,
      partner_type: 'customer',
    });
    expect(created.httpStatus).toBe(200);
    const res = await fetch(`${sys.url}/crm/partners`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sys.keys[1]}` },
      body: JSON.stringify({ org_id: '1', search: 'Ünïcode' }),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
    const answer = JSON.parse(bytes.toString('utf8')) as { statusCode: number; body: { partners: Array<{ partnername: string }> } };
    expect(answer.statusCode).toBe(200);
    expect(answer.body.partners.map((p) => p.partnername)).toEqual([name]);
  });

  it('answers a CORS preflight and refuses other methods with 405 in the envelope', async () => {
    const pre = await fetch(`${sys.url}/crm/partners`, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.test', 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-headers')).toContain('Authorization');
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const res = await fetch(`${sys.url}/crm/partners`, { method, headers: { authorization: `Bearer ${sys.keys[1]}` } });
      expect(res.status).toBe(405);
      const env = (await res.json()) as any;
      expect(env).toMatchObject({ statusCode: 405, body: { code: 'method_not_allowed' }, headers: corsHeaders });
    }
  });

  it('serves /metrics without CORS headers, so a page of another origin cannot read its cross-tenant volumes', async () => {
    const origin = { origin: 'http://elsewhere.test' };
    const res = await fetch(`${sys.url}/metrics`, { headers: origin });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('bo_http_request_duration_seconds');
    const pre = await fetch(`${sys.url}/metrics`, { method: 'OPTIONS', headers: { ...origin, 'access-control-request-method': 'GET' } });
    for (const answer of [res, pre]) {
      expect([...answer.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
    // Everything else keeps them.
    expect((await fetch(`${sys.url}/health`, { headers: origin })).headers.get('access-control-allow-origin')).toBe('*');
  });

  it('matches paths with or without the trailing slash or a query string and 404s unknown ones', async () => {
    expect((await sys.post('/crm/partners/', { org_id: '1' })).statusCode).toBe(200);
    expect((await sys.post('/crm/partners', { org_id: '1' })).statusCode).toBe(200);
    expect((await sys.post('/crm/partners?page=2', { org_id: '1' })).statusCode).toBe(200);
    expect((await sys.post('/crm/partners/?page=2', { org_id: '1' })).statusCode).toBe(200);
    const unknown = await sys.post('/crm/partnerz', { org_id: '1' });
    expect([unknown.httpStatus, unknown.body.code]).toEqual([404, 'not_found']);
  });

  it('names the allowed actions for an unknown action', async () => {
    const r = await sys.post('/crm/editpatner', { org_id: '1', action: 'merge' });
    expect(r.statusCode).toBe(400);
    expect(r.body).toMatchObject({ code: 'unknown_action', message: expect.stringContaining('create, edit, delete') });
  });

  it('requires a live API key of the organization named in org_id', async () => {
    const before = await partnerCount();
    const withKey = (apiKey?: string) => createClient({ baseUrl: sys.url, apiKey });
    expect(await refusal(withKey().partners.partner.create(createBody('NoKey')))).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(await refusal(withKey('bo_not-a-real-key').partners.partner.create(createBody('WrongKey')))).toMatchObject({
      status: 401,
      code: 'unauthorized',
    });
    expect(await refusal(sys.clientOf(2).partners.partner.create(createBody('OtherOrg')))).toMatchObject({
      status: 403,
      code: 'forbidden',
    });
    // A body without org_id is what the client's types do not let through: sent raw.
    const noOrg = await sys.post('/crm/partners', {});
    expect([noOrg.httpStatus, noOrg.body.message]).toEqual([400, 'org_id is required']);

    const key = await sys.system.createApiKey(1);
    expect((await withKey(key).partners.partner.list({ org_id: '1' })).partners).toEqual(expect.any(Array));
    const db = createDb(sys.databaseUrl, 'gateway', 1);
    try {
      expect(await revokeApiKey(db, key)).toBe(true);
    } finally {
      await db.destroy();
    }
    expect(await refusal(withKey(key).partners.partner.list({ org_id: '1' }))).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(await partnerCount()).toBe(before);
  });

  it('refuses malformed JSON, non-object bodies and bodies over the limit', async () => {
    const before = await partnerCount();
    const send = (body: string) =>
      fetch(`${sys.url}/crm/editpatner`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${sys.keys[1]}` },
        body,
      });
    const malformed = await send('{"org_id": "1", "action": "create",');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as any).body.code).toBe('malformed_json');
    const array = await send('[1,2]');
    expect(array.status).toBe(400);
    const huge = await send(JSON.stringify({ ...createBody('Huge'), notes: 'x'.repeat(10_000) }));
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as any).body.code).toBe('payload_too_large');
    expect(await partnerCount()).toBe(before);
  });

  it('reads a larger body where an operation carries a file, and holds every other operation of that path to the limit', async () => {
    // BODY_LIMIT_BYTES is 4096 here; importing an e-invoice states 28.1 MB (Operation.maxBodyBytes).
    const send = (path: string, body: Record<string, unknown>) =>
      fetch(`${sys.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${sys.keys[1]}` },
        body: JSON.stringify({ org_id: '1', ...body }),
      });
    const file = Buffer.alloc(30_000, 'x').toString('base64');
    // Read, checked and forwarded: invoicing is not running here, so the answer is its absence, not the size.
    const imported = await send('/invoicing/inbound', { action: 'import', content_base64: file });
    expect([imported.status, ((await imported.json()) as any).body.code]).toEqual([503, 'service_unavailable']);
    // The same path, an operation that carries no file: the gateway's limit, named.
    const listed = await send('/invoicing/inbound', { action: 'list', notes: file });
    const refused = (await listed.json()) as any;
    expect([listed.status, refused.body.code, refused.body.message]).toEqual([413, 'payload_too_large', 'Request body exceeds 4096 bytes']);
    // Another path keeps the gateway's limit too.
    const partner = await send('/crm/editpatner', { ...createBody('Big'), notes: file });
    expect(partner.status).toBe(413);
  });

  it('replays a write sent again with the same Idempotency-Key and refuses the key with another body', async () => {
    const before = await partnerCount();
    const key = { idempotencyKey: 'create-once-1' };
    const first = await sys.client.partners.partner.create(createBody('Once'), key);
    const second = await sys.client.partners.partner.create(createBody('Once'), key);
    expect(first.partner.partnername).toBe('Once');
    expect(second).toEqual(first);
    expect(await partnerCount()).toBe(before + 1);
    const other = refusal(sys.client.partners.partner.create(createBody('Twice'), key));
    expect(await other).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    // Keys are per organization: org 2 may use the same key for its own request.
    const org2 = await sys.clientOf(2).partners.partner.create({ ...createBody('Org2'), org_id: '2' }, key);
    expect(org2.partner).toMatchObject({ orgid: 2, partnername: 'Org2' });
    expect(await partnerCount()).toBe(before + 1);
  });

  it('answers 503 for an operation whose service is not part of the running system', async () => {
    const r = await sys.post('/inventory/getproducts', { org_id: '1' });
    expect([r.httpStatus, r.body.code]).toEqual([503, 'service_unavailable']);
    expect(r.body.request_id).toEqual(expect.any(String));
  });

  it('answers a bug in a service with 500, a request id to quote and no stack trace', async () => {
    // A stand-in catalog whose handler throws, served over the same RabbitMQ prefix.
    const broken = new AmqpBus({
      url: sys.system.config.AMQP_URL!,
      prefix: sys.system.config.BUS_PREFIX,
      log: createLogger('broken', 'silent'),
    });
    await broken.connect();
    try {
      await broken.serve('catalog', ['catalog.product.list'], async () => {
        throw new Error('secret internal detail at /srv/app.js:42');
      });
      const r = await sys.post('/inventory/getproducts', { org_id: '1' }, { headers: { 'x-request-id': 'trace-me-123' } });
      expect([r.httpStatus, r.body.code]).toEqual([500, 'internal_error']);
      expect(r.body.request_id).toBe('trace-me-123');
      expect(JSON.stringify(r.body)).not.toMatch(/secret|app\.js|stack/);
    } finally {
      await broken.close();
      await broken.destroyTopology({ exchanges: false });
    }
  });

  it('serves its OpenAPI 3.1 document, generated from the operation catalogue', async () => {
    const doc = (await (await fetch(`${sys.url}/openapi.json`)).json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/crm/partners', '/crm/editpatner', '/invoicing/invoice/new']));
    expect(doc.paths['/crm/editpatner'].post.description).toContain('partners.partner.create');
  });
});

describe('gateway: health of the whole system', () => {
  it('is ok when every service answers its ping', async () => {
    const sys = await startTestSystem();
    try {
      const res = await fetch(`${sys.url}/health`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: 'ok',
        services: { partners: 'ok', catalog: 'ok', sales: 'ok', invoicing: 'ok', webhooks: 'ok' },
      });
    } finally {
      await sys.stop();
    }
  });
});

describe('gateway: a stopped service', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ services: ['partners'], env: { RPC_TIMEOUT_MS: '800' } });
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('is reported by /health while it is down', async () => {
    await sys.system.stopService('partners');
    const down = await fetch(`${sys.url}/health`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'degraded', services: { partners: 'timeout' } });
    await sys.system.startService('partners');
    const up = await fetch(`${sys.url}/health`);
    expect(await up.json()).toEqual({ status: 'ok', services: { partners: 'ok' } });
  });

  it('answers a write it timed out on with 504 outcome_unknown; the request is not executed late, and a retry with its key runs once', async () => {
    await sys.system.stopService('partners');
    const r = await refusal(sys.clientOf(1, { retry: false }).partners.partner.create(createBody('Ghost')));
    expect(r).toMatchObject({
      status: 504,
      code: 'outcome_unknown',
      message: expect.stringContaining('same Idempotency-Key'),
      idempotencyKey: expect.any(String),
    });
    const idempotencyKey = r.idempotencyKey!;
    await sys.system.startService('partners');
    // The queue is first in, first out: once a later write was answered, the expired one was dropped, not run.
    expect((await sys.client.partners.partner.create(createBody('After'))).partner.partnername).toBe('After');
    const ghosts = async () => (await sys.client.partners.partner.list({ org_id: '1', search: 'Ghost' })).partners;
    expect(await ghosts()).toEqual([]);
    const retried = await sys.client.partners.partner.create(createBody('Ghost'), { idempotencyKey });
    expect(retried.partner.partnername).toBe('Ghost');
    const again = await sys.client.partners.partner.create(createBody('Ghost'), { idempotencyKey });
    expect(again).toEqual(retried);
    expect(await ghosts()).toHaveLength(1);
  });
});
