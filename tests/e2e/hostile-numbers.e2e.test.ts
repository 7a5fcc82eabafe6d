import pg from 'pg';
import { settle, snapshot } from '../fuzz/support/harness';
import { startTestSystem, type TestSystem } from '../support/system';

/**
 * Numbers written to cost the server a gigabyte (an exponent of a billion, ten thousand digits, a
 * JSON number past the doubles' range) are judged from their text: each is refused with a 400 naming
 * its field, a hundred of them at once leave the gateway's and services' memory where it was, the
 * system keeps serving while they arrive, and nothing they name changes.
 *
 * The gateway and the services run in this process (startTestSystem), so this process's memory is
 * theirs.
 */

const MiB = 1024 * 1024;
/** Growth of the process allowed while the hostile requests are answered: their bodies are a few megabytes in all. */
const MEMORY_BOUND = 100 * MiB;
const HOSTILE = 100;

const digits = (n: number) => '9'.repeat(n);

/** A decimal field's hostile values: JSON text spliced in as is, with the problem it is refused for. */
const hostileNumbers: Array<[json: string, problem: RegExp]> = [
  ['"1e999999999"', /must be less than \d+ in magnitude$/],
  ['"1e500000000"', /must be less than \d+ in magnitude$/],
  ['"-1e999999999"', /must be at least 0$|must be greater than 0$|must be less than \d+ in magnitude$/],
  ['"1e-999999999"', /must have at most \d decimal places$/],
  ['"1E+308"', /must be less than \d+ in magnitude$/],
  ['1E+308', /must be less than \d+ in magnitude$/],
  ['1e999999999', /must be a finite number/],
  ['-1e999999999', /must be a finite number/],
  [`"${digits(10_000)}"`, /must be less than \d+ in magnitude$/],
  [digits(10_000), /must be a finite number/],
  [`"0.${'0'.repeat(10_000)}1"`, /must have at most \d decimal places$/],
  // JSON.parse reads this as 0: a field that takes 0 would store it, so the gateway refuses the number as rounded.
  [`0.${'0'.repeat(10_000)}1`, /has more digits than a JSON number holds: it reads as 0;|must be greater than 0$/],
  ['0.1000000000000000000001', /has more digits than a JSON number holds: it reads as 0.1;/],
  [`"1e${digits(10_000)}"`, /must be less than \d+ in magnitude$/],
  [`"1e-${digits(10_000)}"`, /must have at most \d decimal places$/],
  ['"-0.001"', /must have at most \d decimal places$|must be at least 0$|must be greater than 0$/],
  ['123456789012345678901234567890', /must be less than \d+ in magnitude$/],
];

describe('hostile numbers through the gateway', () => {
  let sys: TestSystem;
  let db: pg.Client;
  let partnerId: number;
  let productId: number;

  beforeAll(async () => {
    sys = await startTestSystem({ bus: 'in-process' });
    db = new pg.Client({ connectionString: sys.databaseUrl });
    await db.connect();
    const partner = await sys.post('/crm/editpatner', {
      org_id: 1,
      action: 'create',
      partnername: 'Careful Ltd',
      partner_type: 'customer',
      credit_limit: '1000.00',
    });
    expect(partner.statusCode).toBe(200);
    partnerId = partner.body.partner.id;
    const product = await sys.post('/inventory/editproduct', { org_id: 1, name: 'Hour', type: 'service' });
    expect(product.statusCode).toBe(200);
    productId = product.body.product.id;
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await sys?.stop();
  });

  const send = async (path: string, body: string) => {
    const res = await fetch(sys.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${sys.keys[1]}` },
      body,
    });
    return { status: res.status, envelope: (await res.json()) as { statusCode: number; body: Record<string, any> } };
  };
  const creditLimit = async () =>
    (await db.query('select credit_limit::text as c from partners.partners where id = $1', [partnerId])).rows[0]?.c;

  /** A hostile request: its path, its body, the field it must be refused for and why. */
  const hostileRequests = () => {
    const line = (field: string, json: string) =>
      `{"product_id":${productId},"quantity":1,"price":10,"tax_rate":20,"tax_included":false,"${field}":${json}}`;
    const kinds = [
      (json: string) => ({
        path: '/crm/editpatner',
        body: `{"org_id":1,"action":"edit","partner_id":${partnerId},"credit_limit":${json}}`,
        field: 'credit_limit',
      }),
      (json: string) => ({
        path: '/invoicing/invoice/new',
        body: `{"org_id":1,"invoicetype":"invoiceout","partner":${partnerId},"line_items":[${line('quantity', json)}]}`,
        field: 'line_items.0.quantity',
      }),
      (json: string) => ({
        path: '/invoicing/invoice/new',
        body: `{"org_id":1,"invoicetype":"invoiceout","partner":${partnerId},"line_items":[${line('price', json)}]}`,
        field: 'line_items.0.price',
      }),
      (json: string) => ({
        path: '/invoicing/invoice/new',
        body: `{"org_id":1,"invoicetype":"invoiceout","partner":${partnerId},"line_items":[${line('discount', json)}]}`,
        field: 'line_items.0.discount',
      }),
    ];
    return Array.from({ length: HOSTILE }, (_, i) => {
      const [json, problem] = hostileNumbers[i % hostileNumbers.length] as [string, RegExp];
      const kind = kinds[Math.floor(i / hostileNumbers.length) % kinds.length] as (typeof kinds)[number];
      return { ...kind(json), problem, json };
    });
  };

  it('refuses credit_limit "1e999999999" with a 400 naming the field, and keeps the limit', async () => {
    const r = await send('/crm/editpatner', `{"org_id":1,"action":"edit","partner_id":${partnerId},"credit_limit":"1e999999999"}`);
    expect([r.status, r.envelope.body.code]).toEqual([400, 'validation_failed']);
    expect(r.envelope.body.errors).toEqual([
      { field: 'credit_limit', message: 'credit_limit must be less than 1000000000000 in magnitude' },
    ]);
    expect(await creditLimit()).toBe('1000.00');
  });

  it(`answers ${HOSTILE} hostile numbers at once with 400s naming each field, in bounded memory, while serving others, and changes nothing`, async () => {
    const requests = hostileRequests();
    const before = await settle(db);
    const baseline = process.memoryUsage();
    let peak = { rss: baseline.rss, heapUsed: baseline.heapUsed };
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peak = { rss: Math.max(peak.rss, m.rss), heapUsed: Math.max(peak.heapUsed, m.heapUsed) };
    }, 5);

    // Ordinary requests keep being answered while the hostile ones arrive.
    let hostileDone = false;
    const servedDuring: number[] = [];
    const ordinary = (async () => {
      while (!hostileDone || servedDuring.length < 3) {
        const r = await sys.post('/crm/partners', { org_id: 1, partner_id: partnerId });
        servedDuring.push(r.statusCode);
      }
    })();
    let answers: Array<{ status: number; envelope: { body: Record<string, any> } }>;
    try {
      answers = await Promise.all(requests.map((r) => send(r.path, r.body)));
    } finally {
      hostileDone = true;
      await ordinary;
      clearInterval(sampler);
    }

    const unexpected = answers.flatMap((a, i) => {
      const req = requests[i] as (typeof requests)[number];
      const errors = a.envelope.body.errors as Array<{ field: string; message: string }> | undefined;
      const named = errors?.length === 1 && errors[0]?.field === req.field && req.problem.test(errors[0].message);
      return a.status === 400 && a.envelope.body.code === 'validation_failed' && named
        ? []
        : [`${req.path} ${req.field}=${req.json.slice(0, 30)} → ${a.status} ${JSON.stringify(a.envelope.body).slice(0, 300)}`];
    });
    expect(unexpected).toEqual([]);
    expect(servedDuring.length).toBeGreaterThanOrEqual(3);
    expect(servedDuring.filter((s) => s !== 200)).toEqual([]);

    const growth = { rss: peak.rss - baseline.rss, heapUsed: peak.heapUsed - baseline.heapUsed };
    expect(growth.rss).toBeLessThan(MEMORY_BOUND);
    expect(growth.heapUsed).toBeLessThan(MEMORY_BOUND);

    // Still serving, and no refusal changed a business row: the credit limit is the one it was.
    const after = await sys.post('/crm/partners', { org_id: 1, partner_id: partnerId });
    expect(after.statusCode).toBe(200);
    expect(await creditLimit()).toBe('1000.00');
    expect(await snapshot(db)).toEqual(before);
  }, 120_000);

  it('still accepts a limit written with an exponent, in its plain form', async () => {
    // The column keeps a limit's decimals as given (partners migration 007), so the plain form is stored exactly.
    const r = await send('/crm/editpatner', `{"org_id":1,"action":"edit","partner_id":${partnerId},"credit_limit":"1.5e3"}`);
    expect(r.status).toBe(200);
    expect(await creditLimit()).toBe('1500');
    const back = await send('/crm/editpatner', `{"org_id":1,"action":"edit","partner_id":${partnerId},"credit_limit":"1000.00"}`);
    expect(back.status).toBe(200);
    expect(await creditLimit()).toBe('1000.00');
  });
});
