import { randomUUID } from 'node:crypto';
import type Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv/dist/2020';
import fc from 'fast-check';
import { dereference } from '../../packages/contracts/src/openapi.fixtures';
import pg from 'pg';
import { events } from '../../packages/contracts/src/catalogue';
import { patternsIn, portabilityProblems } from '../support/pattern-portability';
import { extensionsIn, strangersAjv } from '../../packages/contracts/src/testing/strangers-ajv';
import { startTestSystem, type TestSystem } from '../support/system';
import { describeFailure, sendAll, settle, snapshot, type FuzzRequest, type FuzzResult } from './support/harness';
import {
  conformingValue,
  emptyPools,
  LOOPBACK_URLS,
  operationCases,
  violationsOf,
  type JsonSchema,
  type OperationCase,
} from './support/openapi-bodies';

/**
 * The OpenAPI document served at /openapi.json against the server behind it, as an outside
 * conformance tool would hold them: requests generated from the document alone, for every operation
 * on every path. A body the document accepts is accepted (200) or refused by a business rule the
 * document lists for the path (`not_found`, `invalid_state` ...), never as malformed; a body the
 * document refuses, for breaking one rule it states, is refused with 400 and changes nothing; every
 * answer matches the response the document declares for its status. The Idempotency-Key header is
 * held to its declared pattern on reads and writes alike. The document is read as a stranger's tools
 * read it: Ajv in strict mode and untuned, and every pattern one that each mainstream engine compiles
 * and reads alike (ECMA-262 with and without `u`, Python, Rust, PCRE).
 *
 * A failure prints the seed: `FUZZ_SEED=<seed> npx jest tests/fuzz/conformance` replays the same requests.
 */

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2_147_483_647);
const CONCURRENCY = 8;
const VALID_PER_CASE = 14;
const INVALID_PER_CASE = 14;
/** Codes that say the body itself was wrong: never the answer to a body the document accepts. */
const MALFORMED = ['validation_failed', 'malformed_json', 'unknown_action'];
/** The document's body limit: "within 1 MiB (beyond that: 413)". */
const BODY_LIMIT_BYTES = 1024 * 1024;
const today = new Date().toISOString().slice(0, 10);

interface Doc {
  paths: Record<
    string,
    {
      post: {
        parameters: Array<{ name: string; schema: JsonSchema }>;
        requestBody: { content: { 'application/json': { schema: JsonSchema } } };
        responses: Record<string, { content: { 'application/json': { schema: JsonSchema } } }>;
      };
    }
  >;
  servers?: Array<{ url: string }>;
}

function seedFor(name: string, phase: string): number {
  let h = SEED;
  for (const c of `${phase}:${name}`) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
  return h;
}

function report(results: FuzzResult[], what: string): string {
  const failures = results.filter((r) => r.problems.length > 0);
  if (failures.length === 0) return '';
  const shown = failures.slice(0, 12).map(describeFailure).join('\n\n');
  return `${failures.length} of ${results.length} ${what} broke the document (seed ${SEED}; replay with FUZZ_SEED=${SEED}):\n\n${shown}`;
}

describe('the served OpenAPI document says what the server does', () => {
  let sys: TestSystem;
  let db: pg.Client;
  let doc: Doc;
  let cases: OperationCase[];
  let ajv: Ajv2020;
  const requestValidators = new Map<string, ValidateFunction>();
  const responseValidators = new Map<string, ValidateFunction>();
  const pools = emptyPools();

  const ok = async (path: string, body: Record<string, unknown>) => {
    const r = await sys.post(path, { org_id: 1, ...body });
    if (r.statusCode !== 200) throw new Error(`seeding ${path} answered ${r.statusCode}: ${JSON.stringify(r.body)}`);
    return r.body;
  };

  /**
   * A few real records, so that generated ids sometimes name rows that exist. Each test that writes
   * may delete or cancel them (a delete body names pooled ids most of the time), so a test that
   * counts carried-out operations starts from fresh ones.
   */
  async function seedPools(): Promise<void> {
    for (const pool of Object.values(pools)) pool.length = 0;
    // Earlier bodies may have closed the books (a lock date in year 8000) or moved the organization
    // to another currency: opened again before anything is posted. Once the books have posted, their
    // currency is fixed (docs/invoicing.md "The books' settings"), and they keep the one they have.
    await ok('/organization/setprofile', { lock_date: null, cash_rounding: null });
    const euro = await sys.post('/organization/setprofile', { org_id: 1, default_currency: 'EUR' });
    if (euro.statusCode !== 200 && euro.body.errors?.[0]?.field !== 'default_currency') {
      throw new Error(`seeding the currency answered ${euro.statusCode}: ${JSON.stringify(euro.body)}`);
    }
    await sys.eventsSettled();
    for (const type of ['customer', 'vendor', 'both'])
      pools.partner.push((await ok('/crm/editpatner', { action: 'create', partnername: `Conf ${type}`, partner_type: type })).partner.id);
    pools.category.push((await ok('/inventory/categories', { name: `Conf tools ${randomUUID().slice(0, 8)}` })).category.id);
    const warehouse = await ok('/inventory/ops/getdata', { action: 'create_warehouse', name: `Conf depot ${randomUUID().slice(0, 8)}` });
    pools.warehouse.push(warehouse.warehouse.id);
    pools.location.push(warehouse.location.location_id);
    for (let i = 0; i < 3; i++)
      pools.product.push((await ok('/inventory/editproduct', { name: `Conf hammer ${i}`, price: 10, stock: 50 })).product.id);
    const line = { product_id: pools.product[0], quantity: 1, price: 10, tax_rate: 10, tax_included: false };
    pools.quotation.push(
      (
        await ok('/sales/addline', {
          action: 'create_quotation',
          partner: pools.partner[0],
          quotation_type: 'quotation',
          quotation_date: `${today}T09:00:00`,
          valid_until: `${Number(today.slice(0, 4)) + 1}${today.slice(4)}`,
          line_items: [line],
        })
      ).quotation.id,
    );
    for (let i = 0; i < 2; i++) {
      const invoice = (await ok('/invoicing/invoice/new', { invoicetype: 'invoiceout', partner: pools.partner[0], line_items: [line] }))
        .invoice.id;
      pools.invoice.push(invoice);
      // The second is open, so that payments, allocations and write-offs have something to settle.
      if (i === 1) await ok('/invoicing/invoice/new', { id: invoice, validate_invoice: true });
    }
    const payment = await ok('/invoicing/payments', {
      action: 'create',
      partner: pools.partner[0],
      amount: 100,
      currency: 'EUR',
      // Whatever currency earlier bodies left the organization booking in: a rate of 1 is taken for any.
      exchange_rate: 1,
      direction: 'in',
    });
    pools.payment.push(payment.payment.id);
    pools.event.push('*', 'invoicing.*', ...events.slice(0, 4).map((e) => e.type));
    const endpoint = await ok('/integrations/webhooks', { action: 'create', url: LOOPBACK_URLS[0], events: ['*'] });
    pools.endpoint.push(endpoint.endpoint.id);
  }

  beforeAll(async () => {
    process.stdout.write(`conformance fuzz seed ${SEED}\n`);
    // Timing is not under test here: a PDF render queued behind a dozen others on a busy machine takes its time.
    // Webhook endpoints point at this machine (LOOPBACK_URLS), never at an address a URL's pattern could name.
    sys = await startTestSystem({ env: { RPC_TIMEOUT_MS: '60000', WEBHOOKS_ALLOW_HTTP: '1', WEBHOOKS_ALLOW_PRIVATE: '1' } });
    db = new pg.Client({ connectionString: sys.databaseUrl });
    await db.connect();
    const res = await fetch(`${sys.url}/openapi.json`);
    // Its schemas refer to named components (`$ref`): inlined, as a validator handed one schema needs them.
    const served = await res.json();
    doc = dereference(served as Doc);
    ajv = strangersAjv(extensionsIn(served));
    cases = operationCases(doc);
    for (const [path, item] of Object.entries(doc.paths)) {
      requestValidators.set(path, ajv.compile(item.post.requestBody.content['application/json'].schema));
      for (const [status, response] of Object.entries(item.post.responses))
        responseValidators.set(`${path} ${status}`, ajv.compile(response.content['application/json'].schema));
    }

    await seedPools();
  }, 90_000);

  afterAll(async () => {
    await db?.end();
    await sys?.stop();
  });

  const accepts = (path: string, body: unknown) => requestValidators.get(path)!(body);

  /** Bodies of `op` the document accepts: generated from its alternative, kept when the path's schema agrees. */
  function validBodies(op: OperationCase, count: number, phase: string): Array<Record<string, unknown>> {
    const generated = fc.sample(conformingValue('body', op.schema, pools), { numRuns: count * 3, seed: seedFor(op.name + op.path, phase) });
    const kept = generated.filter((b): b is Record<string, unknown> => accepts(op.path, b)).slice(0, count);
    // The generator follows the document closely enough to be worth running: most of what it makes is valid.
    expect([op.path, op.name, kept.length]).toEqual([op.path, op.name, count]);
    return kept;
  }

  /** The answer's envelope against the response the document declares for its status. */
  function checkAnswer(r: FuzzResult): void {
    const validate = responseValidators.get(`${r.request.path} ${r.status}`);
    if (!validate) return void r.problems.push(`status ${r.status} is not declared for ${r.request.path}`);
    if (!validate(r.envelope))
      r.problems.push(`answer does not match the declared ${r.status} response: ${ajv.errorsText(validate.errors)}`);
  }

  /**
   * Why a refusal of a body the document accepts is not one the document foresees: a business code
   * its 400 response lists, or `validation_failed` naming only fields of rules the operation states
   * beyond its schema (`x-rules`); undefined when it is.
   */
  function businessRefusalProblem(r: FuzzResult, op: OperationCase): string | undefined {
    const code = r.envelope?.body?.code as string | undefined;
    const declared = (doc.paths[r.request.path]!.post.responses['400']?.content['application/json'].schema as any)?.properties?.body
      ?.properties?.code?.enum as string[] | undefined;
    if (r.status !== 400 || !code || !declared?.includes(code)) return `${r.status} ${code ?? ''}`;
    if (code === 'validation_failed') {
      const rules = ((op.schema as { 'x-rules'?: Array<{ field: string }> })['x-rules'] ?? []).map((x) => x.field);
      const fields = ((r.envelope.body.errors ?? []) as Array<{ field: string }>).map((e) => e.field);
      const unforeseen = fields.filter((f) => !rules.some((rule) => f === rule || f.startsWith(`${rule}.`) || f.startsWith(`${rule}[`)));
      if (fields.length === 0 || unforeseen.length)
        return `validation_failed on ${unforeseen.join(', ') || 'no field'}, a rule the document does not state`;
      return undefined;
    }
    return MALFORMED.includes(code) ? `${code}` : undefined;
  }

  const request = (op: OperationCase, body: unknown, label: string, headers: Record<string, string> = {}): FuzzRequest => ({
    path: op.path,
    body: JSON.stringify(body),
    org: 1,
    headers,
    label: `${label} ${op.name} on ${op.path}`,
    maxBodyBytes: (op.schema as { 'x-max-body-bytes'?: number })['x-max-body-bytes'],
  });

  it('serves a document that names its server', () => {
    expect(doc.servers?.[0]?.url).toBe('/');
    expect(cases.length).toBeGreaterThanOrEqual(50);
  });

  it('serves patterns that every mainstream regex engine compiles and reads alike', () => {
    const patterns = patternsIn(doc);
    expect(patterns.length).toBeGreaterThan(20);
    expect(portabilityProblems(patterns, SEED)).toEqual([]);
  }, 60_000);

  it('refuses with 400, changing nothing, every body that breaks a rule the document states', async () => {
    const requests: FuzzRequest[] = [];
    for (const op of cases) {
      const props = Object.entries(op.schema.properties ?? {}).filter(([n]) => !op.pathSelectors.includes(n) && n !== 'org_id');
      const required = (op.schema.required ?? []).filter((n) => !op.pathSelectors.includes(n));
      const bases = validBodies(op, 4, 'invalid-base');
      const breakers = fc.sample(
        fc.tuple(
          fc.constantFrom(...bases),
          fc.oneof(
            { weight: 6, arbitrary: props.length ? fc.constantFrom(...props) : fc.constant(undefined) },
            { weight: 1, arbitrary: required.length ? fc.constantFrom(...required) : fc.constant(undefined) },
          ),
          fc.nat(),
        ),
        { numRuns: INVALID_PER_CASE * 4, seed: seedFor(op.name + op.path, 'invalid') },
      );
      let made = 0;
      for (const [base, target, pick] of breakers) {
        if (made >= INVALID_PER_CASE || target === undefined) continue;
        const body: Record<string, unknown> = { ...base };
        let label: string;
        if (typeof target === 'string') {
          delete body[target];
          label = `without ${target}`;
        } else {
          const [name, schema] = target;
          const values = violationsOf(schema);
          const value = values[pick % values.length];
          body[name] = value;
          label = `${name}=${JSON.stringify(value)?.slice(0, 40)}`;
        }
        // Only what the document itself refuses counts: the server is held to the document, not to this list.
        if (accepts(op.path, body)) continue;
        made++;
        requests.push(request(op, body, `invalid (${label})`, op.write ? { 'idempotency-key': `conf-${randomUUID()}` } : {}));
      }
    }
    // Settled first: events of earlier writes still landing are no change of these requests'.
    const before = await settle(db);
    const results = await sendAll(sys.url, sys.keys, requests, CONCURRENCY);
    for (const r of results) {
      checkAnswer(r);
      // The document's own limit: a body over 1 MiB (or its operation's `x-max-body-bytes`) is refused 413 before any schema is read.
      const limit = Math.max(BODY_LIMIT_BYTES, r.request.maxBodyBytes ?? 0);
      if (Buffer.byteLength(r.request.body) > limit) {
        if (r.status !== 413 || r.envelope?.body?.code !== 'payload_too_large')
          r.problems.push(`a body over ${limit} bytes was answered ${r.status} ${r.envelope?.body?.code ?? ''}, not 413`);
      } else if (r.status !== 400 || !MALFORMED.includes(r.envelope?.body?.code))
        r.problems.push(`a body the document refuses was answered ${r.status} ${r.envelope?.body?.code ?? ''}, not 400 as malformed`);
    }
    expect(report(results, 'refused bodies')).toBe('');
    expect(await snapshot(db)).toEqual(before);
    expect(results.length).toBeGreaterThan(cases.length * 5);
  }, 120_000);

  it('agrees with the server on the bodies an outside conformance tool was refused, and on their near neighbours', async () => {
    const product = pools.product[0];
    const location = pools.location[0];
    const line = { product_id: product, quantity: 1, price: 10, tax_rate: 10, tax_included: false };
    const cases: Array<[string, Record<string, unknown>, boolean]> = [
      ['/crm/partners', { org_id: 1, page_number: 0 }, false],
      ['/crm/partners', { org_id: 1, page_number: 1, page_size: 100 }, true],
      ['/crm/partners', { org_id: 1, page_size: 101 }, false],
      ['/crm/partners', { org_id: 1, partner_id: 2147483648 }, false],
      ['/crm/partners', { org_id: 1, partner_id: '0' }, false],
      ['/invoicing/listinvoices', { org_id: 1, date_from: '2000-02-30' }, false],
      ['/invoicing/listinvoices', { org_id: 1, date_from: '2000-02-29' }, true],
      ['/invoicing/listinvoices', { org_id: 1, date_from: '1900-02-29' }, false],
      ['/inventory/ops/getdata', { org_id: 1, action: 'stock_adjustment', product_id: product, qty_locations: {} }, false],
      ['/inventory/ops/getdata', { org_id: 1, action: 'stock_adjustment', product_id: product, qty_locations: { [location!]: 3 } }, true],
      [
        '/invoicing/invoice/new',
        { org_id: 1, invoicetype: 'invoiceout', partner: pools.partner[0], line_items: [{ ...line, quantity: 0 }] },
        false,
      ],
      [
        '/invoicing/invoice/new',
        { org_id: 1, invoicetype: 'invoiceout', partner: pools.partner[0], line_items: [{ ...line, quantity: '0.0001' }] },
        true,
      ],
      [
        '/invoicing/invoice/new',
        { org_id: 1, invoicetype: 'invoiceout', partner: pools.partner[0], line_items: [{ ...line, quantity: 0.00001 }] },
        false,
      ],
      ['/crm/editpatner', { org_id: 1, action: 'create', partnername: '😀'.repeat(200), partner_type: 'customer' }, true],
      ['/crm/editpatner', { org_id: 1, action: 'create', partnername: '😀'.repeat(201), partner_type: 'customer' }, false],
      ['/crm/editpatner', { org_id: 1, action: 'create', partnername: ' \u3000 ', partner_type: 'customer' }, false],
      ['/crm/editpatner', { org_id: 1, action: 'create', partnername: 'A\u0007', partner_type: 'customer' }, false],
      ['/crm/editpatner', { org_id: 1, action: 'create', partnername: 'Mail', partner_type: 'customer', email: 'a b@c.d' }, false],
      ['/crm/editpatner', { org_id: 1, action: 'create', partnername: 'Mail', partner_type: 'customer', email: ' a@b.co ' }, true],
      ['/crm/editpatner', { org_id: 1, action: 'create', partnername: 'Cents', partner_type: 'customer', credit_limit: 10.00001 }, false],
      ['/crm/editpatner', { org_id: 1, action: 'create', partnername: 'Cents', partner_type: 'customer', credit_limit: '10.01' }, true],
      ['/organization/setprofile', { org_id: 1, iban: 'FR76 3000 6000 0112 3456 7890 188' }, false],
      ['/organization/setprofile', { org_id: 1, iban: 'FR76 3000 6000 0112 3456 7890 189', country: ' fr ', bic: 'bnpafrpp' }, true],
    ];
    const problems: string[] = [];
    for (const [path, body, valid] of cases) {
      if (!doc.paths[path]) {
        problems.push(`${path} is not in the document`);
        continue;
      }
      if (accepts(path, body) !== valid) problems.push(`the document ${valid ? 'refuses' : 'accepts'} ${path} ${JSON.stringify(body)}`);
      const r = await sys.post(path, body, { headers: { 'idempotency-key': `conf-${randomUUID()}` } });
      const refusedAsMalformed = r.statusCode === 400 && MALFORMED.includes(r.body.code);
      if (valid === refusedAsMalformed)
        problems.push(`the server answers ${r.statusCode} ${r.body.code ?? ''} to ${path} ${JSON.stringify(body)}`);
    }
    expect(problems).toEqual([]);
  });

  it('holds Idempotency-Key to its declared pattern on reads and writes alike', async () => {
    const header = doc.paths['/crm/editpatner']!.post.parameters.find((p) => p.name === 'Idempotency-Key')!.schema;
    const pattern = new RegExp(header['pattern'] as string, 'u');
    const bad = ['k'.repeat(256), 'k'.repeat(300), 'caf\u00e9', ''];
    const good = fc.sample(fc.stringMatching(pattern), { numRuns: cases.length, seed: seedFor('key', 'good') });
    expect(bad.filter((k) => pattern.test(k))).toEqual([]);
    expect(good.every((k) => pattern.test(k) && k.length <= (header['maxLength'] as number))).toBe(true);
    const sent = new Map<FuzzRequest, OperationCase>();
    const requests = cases.flatMap((op, i) => {
      const [body] = validBodies(op, 1, 'keys');
      const made = [
        ...bad.map((key) => request(op, body, `bad key ${JSON.stringify(key.slice(0, 8))}(${key.length})`, { 'idempotency-key': key })),
        // A read ignores a well-formed key; a write is run under it (fresh, so never a replay here).
        request(op, body, 'good key', { 'idempotency-key': op.write ? `${good[i]!.slice(0, 200)}-${randomUUID()}` : good[i]! }),
      ];
      made.forEach((r) => sent.set(r, op));
      return made;
    });
    // Settled first: events of earlier writes still landing are no change of these requests'.
    const before = await settle(db);
    const refusals = requests.filter((r) => r.label.startsWith('bad key'));
    const refused = await sendAll(sys.url, sys.keys, refusals, CONCURRENCY);
    for (const r of refused) {
      checkAnswer(r);
      if (r.status !== 400 || r.envelope?.body?.errors?.[0]?.field !== 'Idempotency-Key')
        r.problems.push(`a malformed Idempotency-Key was answered ${r.status}, not 400 naming the header`);
    }
    expect(report(refused, 'malformed keys')).toBe('');
    expect(await snapshot(db)).toEqual(before);
    const accepted = await sendAll(
      sys.url,
      sys.keys,
      requests.filter((r) => r.label.startsWith('good key')),
      CONCURRENCY,
    );
    for (const r of accepted) {
      checkAnswer(r);
      const problem = r.status === 200 ? undefined : businessRefusalProblem(r, sent.get(r.request)!);
      if (problem) r.problems.push(`a well-formed Idempotency-Key was refused: ${problem}`);
    }
    expect(report(accepted, 'well-formed keys')).toBe('');
  }, 120_000);

  it('accepts every body the document accepts, or refuses it by a business rule the document lists', async () => {
    await seedPools();
    const sent = new Map<FuzzRequest, OperationCase>();
    const requests = cases.flatMap((op) =>
      validBodies(op, VALID_PER_CASE, 'valid').map((body) => {
        const req = request(op, body, 'valid', op.write ? { 'idempotency-key': `conf-${randomUUID()}` } : {});
        sent.set(req, op);
        return req;
      }),
    );
    const results = await sendAll(sys.url, sys.keys, requests, CONCURRENCY);
    for (const r of results) {
      checkAnswer(r);
      if (r.status === 200) continue;
      const problem = businessRefusalProblem(r, sent.get(r.request)!);
      if (problem) r.problems.push(`a body the document accepts was refused: ${problem}`);
    }
    expect(report(results, 'accepted bodies')).toBe('');
    // The bodies reach the services' business: a good share is carried out, on most operations.
    const carried = new Set(results.filter((r) => r.status === 200).map((r) => r.request.label.split(' ')[1]));
    const operations = new Set(cases.map((c) => c.name));
    const notCarried = [...operations].filter((name) => !carried.has(name));
    // Named when too many, so a failure says which operations the generated bodies never get through.
    expect(notCarried.length < operations.size / 2 ? [] : notCarried).toEqual([]);
  }, 120_000);
});
