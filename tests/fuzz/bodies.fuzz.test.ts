import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { requestShapeLimits } from '@bo/contracts';
import { requestHash } from '@bo/runtime';
import { startTestSystem, type TestSystem } from '../support/system';
import { describeFailure, envelopeProblems, sendAll, type FuzzRequest } from './support/harness';

/**
 * Bodies no schema describes, sent as raw bytes: pathological JSON shapes up to the 1 MiB limit,
 * broken JSON, odd encodings and compressions. Each is answered with a well-formed 4xx envelope,
 * never a 5xx, and the system keeps answering afterwards.
 */

const MiB = 1024 * 1024;
const partner = '"org_id":1,"action":"create","partnername":"Deep","partner_type":"customer"';

/** `{"a":{"a":...1...}}` nested `depth` deep. */
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
/** `[[[...]]]` nested `depth` deep. */
const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('pathological bodies through the gateway', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem({ services: ['partners', 'catalog', 'invoicing'] });
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
  });

  const raw = async (path: string, body: string | Buffer, headers: Record<string, string> = {}, name = path) => {
    const res = await fetch(sys.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${sys.keys[1]}`, ...headers },
      body,
    });
    const text = await res.text();
    const { envelope, problems } = envelopeProblems(res.status, text);
    expect({ name, problems }).toEqual({ name, problems: [] });
    return { status: res.status, body: envelope.body as Record<string, any> };
  };

  it('refuses a 1 MiB [[[[…]]]] body as not an object, without recursing into it', async () => {
    const r = await raw('/crm/editpatner', deepArray(MiB / 2));
    expect([r.status, r.body.code]).toEqual([400, 'validation_failed']);
  });

  it('refuses a 1 MiB {"a":{"a":…}} body, and the same nesting in a field, naming where, with or without Idempotency-Key', async () => {
    const depth = Math.floor((MiB - 200) / 6);
    const bare = await raw('/crm/editpatner', deepObject(depth));
    expect(bare.status).toBe(400);
    const body = `{${partner},"extra":${deepObject(depth - 1)}}`;
    expect(body.length).toBeLessThanOrEqual(MiB);
    for (const headers of [{}, { 'idempotency-key': 'deep-1' }] as Array<Record<string, string>>) {
      const r = await raw('/crm/editpatner', body, headers);
      expect([r.status, r.body.code]).toEqual([400, 'validation_failed']);
      expect(r.body.errors).toEqual([
        {
          field: expect.stringMatching(/^extra\.a\.a\./),
          message: expect.stringMatching(new RegExp(`is nested deeper than ${requestShapeLimits.maxDepth} levels$`)),
        },
      ]);
    }
    // What the shape check spares: the recursive request hash of the Idempotency-Key (and the
    // serializer of the RPC) would have overflowed the stack on this body.
    expect(() => requestHash('partners.partner.create', JSON.parse(body))).toThrow(RangeError);
    expect(() => JSON.stringify(JSON.parse(body))).toThrow(RangeError);
  });

  it('refuses deep nesting in every position, before the body is parsed: the selector, org_id, a value, an array element', async () => {
    const deep = deepArray(100_000);
    const selector = await raw('/crm/editpatner', `{"org_id":1,"action":${deep}}`);
    expect([selector.status, selector.body.code, selector.body.errors[0].field]).toEqual([
      400,
      'validation_failed',
      expect.stringMatching(/^action\.0\.0/),
    ]);
    expect((await raw('/crm/editpatner', `{"org_id":${deep},"action":"create"}`)).status).toBe(400);
    expect((await raw('/crm/editpatner', `{${partner},"notes":${deep}}`)).body.code).toBe('validation_failed');
    expect((await raw('/invoicing/listinvoices', `{"org_id":1,"partner_ids":[1,${deep}]}`)).body.code).toBe('validation_failed');
    expect((await raw('/invoicing/invoice/new', `{"org_id":1,"id":1,"validate_invoice":${deep}}`)).status).toBe(400);
  });

  it('accepts nesting up to the limit, all the way through the service', async () => {
    // The body is the first level: an extra field nested to the limit and no further is fine.
    const r = await raw('/crm/editpatner', `{${partner},"extra":${deepObject(requestShapeLimits.maxDepth - 1)}}`);
    expect(r.status).toBe(200);
    const over = await raw('/crm/editpatner', `{${partner},"extra":${deepObject(requestShapeLimits.maxDepth)}}`);
    expect(over.body.errors[0].field).toBe(Array(requestShapeLimits.maxDepth).fill('a').join('.').replace(/^a/, 'extra'));
  });

  it('refuses arrays and objects past the size limits, and keeps the legitimate largest requests', async () => {
    const ids = (n: number) => `[${Array.from({ length: n }, (_, i) => i + 1).join(',')}]`;
    const tooMany = await raw('/invoicing/listinvoices', `{"org_id":1,"partner_ids":${ids(requestShapeLimits.maxArrayItems + 1)}}`);
    expect(tooMany.body.errors).toEqual([
      { field: 'partner_ids', message: `partner_ids must have at most ${requestShapeLimits.maxArrayItems} items` },
    ]);
    expect((await raw('/invoicing/listinvoices', `{"org_id":1,"partner_ids":${ids(500)}}`)).status).toBe(200);
    const flat = await raw('/invoicing/listinvoices', `{"org_id":1,"partner_ids":[${new Array(400_000).fill('0').join(',')}]}`);
    expect(flat.body.errors[0].field).toBe('partner_ids');
    const wide = `{"org_id":1,${Array.from({ length: 20_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`;
    expect((await raw('/crm/partners', wide)).body.errors).toEqual([
      { field: 'body', message: `body must have at most ${requestShapeLimits.maxObjectKeys} fields` },
    ]);

    const created = await raw('/crm/editpatner', `{${partner}}`);
    // Every line names a catalog product; 500 lines naming one product are checked in one lookup.
    const product = await raw('/inventory/editproduct', JSON.stringify({ org_id: 1, name: 'Fuzz fee', type: 'service' }));
    const line = { product_id: product.body.product.id, quantity: 1, price: 1, tax_rate: 0, tax_included: false };
    const invoice = { org_id: 1, invoicetype: 'invoiceout', partner: created.body.partner.id, line_items: new Array(500).fill(line) };
    const r = await raw('/invoicing/invoice/new', JSON.stringify(invoice));
    expect([r.status, r.body.invoice?.line_items.length]).toEqual([200, 500]);
  });

  it('answers broken JSON, odd encodings and compressions with an envelope, never a 5xx', async () => {
    const cases: Array<[string, string | Buffer, Record<string, string>]> = [
      ['empty', '', {}],
      ['truncated', '{"org_id":1', {}],
      ['trailing comma', '{"org_id":1,}', {}],
      ['NaN', 'NaN', {}],
      ['single quotes', "{'org_id':1}", {}],
      ['lone surrogate escape', '{"org_id":1,"search":"\\ud800"}', {}],
      ['NUL escape', '{"org_id":1,"search":"a\\u0000b"}', {}],
      ['raw control character', '{"org_id":1,"search":"a\u0001b"}', {}],
      ['byte order mark', '\uFEFF{"org_id":1}', {}],
      ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0x22, 0x7d]), {}],
      ['overlong UTF-8 NUL', Buffer.concat([Buffer.from('{"org_id":1,"search":"'), Buffer.from([0xc0, 0x80]), Buffer.from('"}')]), {}],
      ['UTF-16 body', Buffer.from('{"org_id":1}', 'utf16le'), { 'content-type': 'application/json; charset=utf-16' }],
      ['unknown charset', '{"org_id":1}', { 'content-type': 'application/json; charset=klingon' }],
      [
        'latin1 charset',
        Buffer.from('{"org_id":1,"search":"caf\xe9"}', 'latin1'),
        { 'content-type': 'application/json; charset=iso-8859-1' },
      ],
      ['form content type', 'org_id=1', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['gzip garbage', Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' }],
      ['deflate garbage', Buffer.from([1, 2, 3, 4, 5]), { 'content-encoding': 'deflate' }],
      ['brotli garbage', Buffer.from([0xff, 0xff, 0xff]), { 'content-encoding': 'br' }],
      ['unknown encoding', '{"org_id":1}', { 'content-encoding': 'compress' }],
      ['gzip bomb', gzipSync(Buffer.alloc(20 * MiB, 0x20)), { 'content-encoding': 'gzip' }],
      ['gzip of a deep body', gzipSync(Buffer.from(deepArray(4 * MiB))), { 'content-encoding': 'gzip' }],
      ['over the limit', `{"org_id":1,"search":"${'x'.repeat(MiB)}"}`, {}],
    ];
    const statuses: Record<string, number> = {};
    // raw() checks every answer is a well-formed envelope below 500.
    for (const [name, body, headers] of cases) statuses[name] = (await raw('/crm/partners', body, headers, name)).status;
    expect(statuses).toMatchObject({
      truncated: 400,
      'NUL escape': 400,
      'lone surrogate escape': 400,
      'gzip garbage': 400,
      'gzip bomb': 413,
      'over the limit': 413,
    });
    // A body that only looks different but is valid JSON in a valid encoding is served.
    expect((await raw('/crm/partners', gzipSync(Buffer.from('{"org_id":1}')), { 'content-encoding': 'gzip' })).status).toBe(200);
  });

  it('survives a client that stops mid-body and keeps answering', async () => {
    await new Promise<void>((resolve, reject) => {
      const url = new URL(sys.url);
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST /crm/partners HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${sys.keys[1]}\r\nContent-Length: 100000\r\n\r\n{"org_id":1,`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      });
      socket.on('error', reject);
    });
    expect((await raw('/crm/partners', '{"org_id":1}')).status).toBe(200);
  });

  it('answers random bytes and random JSON texts with a well-formed envelope, never a 5xx', async () => {
    const bodies = fc.sample(
      fc.oneof(
        fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)),
        fc.json({ maxDepth: 4 }).map((j) => j.slice(0, Math.max(1, j.length - 1))),
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc
          .record({ org_id: fc.constantFrom(1, '1', 2, 0, -1, 1.5, '1e400', null), search: fc.string({ unit: 'binary', maxLength: 30 }) })
          .map((v) => JSON.stringify(v)),
      ),
      { numRuns: 400, seed: 42 },
    );
    const paths = ['/crm/partners', '/crm/editpatner', '/invoicing/invoice/new', '/invoicing/listinvoices'];
    const requests: FuzzRequest[] = bodies.map((body, i) => ({
      path: paths[i % paths.length] as string,
      body,
      org: 1,
      label: 'random body',
    }));
    const results = await sendAll(sys.url, sys.keys, requests, 8);
    expect(results.filter((r) => r.problems.length).map(describeFailure)).toEqual([]);
  });
});
