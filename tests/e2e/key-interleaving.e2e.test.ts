import pg from 'pg';
import { refusal, startTestSystem, type TestSystem } from '../support/system';

const today = new Date().toISOString().slice(0, 10);
const later = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

/**
 * One key, one effect, even concurrently (docs/api.md, Idempotency-Key): a conversion takes its key
 * before its first step, so a second request with the same key arriving while the first is between
 * its steps is answered 409 and does nothing: no quotation frozen, no invoice made, nothing for the
 * recovery task to finish. The interleaving is forced: invoicing is stopped, so the first conversion
 * waits in its call to invoicing while the second arrives, and started again before either answers.
 */
describe('an Idempotency-Key used twice while its first request runs', () => {
  let sys: TestSystem;
  let db: pg.Client;
  let partner: number;
  let product: number;
  beforeAll(async () => {
    // The gateway waits 6 s, sales 60 % of that for invoicing: the test's steps fit well inside.
    sys = await startTestSystem({ env: { RPC_TIMEOUT_MS: '6000', CONVERSION_RECOVERY_MS: '200' } });
    db = new pg.Client({ connectionString: sys.databaseUrl });
    await db.connect();
    partner = (
      await sys.client.partners.partner.create({ org_id: '1', partnername: 'Twice Ltd', partner_type: 'customer', currency: 'EUR' })
    ).partner.id;
    product = (await sys.client.catalog.product.create({ org_id: '1', name: 'Widget', price: 50, stock: 100 })).product.id;
  });
  afterAll(async () => {
    await db?.end();
    await sys?.stop();
  });

  const quotation = async () =>
    (
      await sys.client.sales.quotation.create({
        org_id: '1',
        partner: String(partner),
        quotation_type: 'quotation',
        quotation_status: 'draft',
        quotation_date: `${today}T10:00:00`,
        valid_until: later,
        line_items: [{ product_id: product, product_name: 'Widget', quantity: 2, price: 50, tax_rate: 0, tax_included: false }],
      })
    ).quotation.id;
  const convert = (id: number, key: string) =>
    sys
      .clientOf(1, { retry: false })
      .sales.quotation.convert({ org_id: '1', quotation_id: id, invoicetype: 'invoiceout' }, { idempotencyKey: key });
  /** What sales and invoicing hold of a quotation's conversion. */
  const conversionOf = async (id: number) => {
    const q = await db.query<{ status: string; attempted: boolean; invoice_id: number | null }>(
      'select status, conversion_attempted_at is not null as attempted, invoice_id from sales.quotations where id = $1',
      [id],
    );
    const invoices = await db.query<{ n: number }>(
      'select count(*)::int as n from invoicing.invoices where converted_from_quotation_id = $1',
      [id],
    );
    return { ...q.rows[0], invoices: invoices.rows[0]?.n };
  };

  it('answers the second 409 idempotency_conflict while the first is between its steps; only the first takes effect', async () => {
    const first = await quotation();
    const second = await quotation();
    const key = 'convert-once';

    await sys.system.stopService('invoicing');
    const firstAnswer = convert(first, key);
    try {
      // The first has frozen its quotation and waits for invoicing.
      const deadline = Date.now() + 5000;
      while (!(await conversionOf(first)).attempted) {
        if (Date.now() > deadline) throw new Error('the first conversion never started');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // The same key, another quotation: refused at once, before any step.
      const conflict = await refusal(convert(second, key));
      expect(conflict).toMatchObject({ status: 409, code: 'idempotency_conflict' });
      expect(await conversionOf(second)).toEqual({ status: 'draft', attempted: false, invoice_id: null, invoices: 0 });
    } finally {
      await sys.system.startService('invoicing');
    }
    const converted = await firstAnswer;
    expect(converted.invoice.id).toEqual(expect.any(Number));
    expect(await conversionOf(first)).toMatchObject({ status: 'converted', invoice_id: converted.invoice.id, invoices: 1 });

    // The key now names the first conversion: its retry gets it again, the second quotation is refused 422.
    expect((await convert(first, key)).invoice.id).toBe(converted.invoice.id);
    expect(await refusal(convert(second, key))).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    // The second quotation was never frozen, so the recovery task has nothing of it to finish; with a key of its own it converts once.
    expect(await conversionOf(second)).toEqual({ status: 'draft', attempted: false, invoice_id: null, invoices: 0 });
    const own = await convert(second, 'convert-second');
    expect(await conversionOf(second)).toMatchObject({ status: 'converted', invoice_id: own.invoice.id, invoices: 1 });
  });
});
