import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

const today = new Date().toISOString().slice(0, 10);
const later = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
const lineFields = { product_name: 'Widget', quantity: 5, price: 50, discount: 10, tax_rate: 15, tax_included: false };

/**
 * Conversion while the invoicing service is down: the outcome is unknown, the quotation is frozen as
 * it was sent, and the conversion completes once invoicing is back, by a retry or by itself, with
 * one invoice per quotation.
 */
describe('sales conversion when invoicing is down', () => {
  let sys: TestSystem;
  let partnerId: number;
  let line: typeof lineFields & { product_id: number };
  beforeAll(async () => {
    // The gateway waits 2 s; sales waits 60% of that (1.2 s) for invoicing, so sales answers first.
    // Sales' recovery task looks every 200 ms for conversions left with no attempt for 3 × 2 s.
    sys = await startTestSystem({ env: { RPC_TIMEOUT_MS: '2000', CONVERSION_RECOVERY_MS: '200' } });
    const created = await sys.client.partners.partner.create({
      org_id: '1',
      userid: 'u1',
      partnername: 'Outage Buyer',
      partner_type: 'customer',
      currency: 'EUR',
    });
    partnerId = created.partner.id;
    const { product } = await sys.client.catalog.product.create({ org_id: '1', name: 'Widget', price: 50, stock: 100 });
    line = { product_id: product.id, ...lineFields };
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const quotation = async (id: number) =>
    (await sys.client.sales.quotation.list({ org_id: '1', page_size: 100 })).quotations.find((q) => q.id === id);
  const committed = async () => (await sys.client.partners.partner.balance({ org_id: '1', partner_id: partnerId })).partner.committed;
  const create = async () =>
    (
      await sys.client.sales.quotation.create({
        org_id: '1',
        userid: 'u1',
        partner: String(partnerId),
        quotation_type: 'quotation',
        quotation_status: 'draft',
        quotation_date: `${today}T10:00:00`,
        valid_until: later,
        line_items: [line],
      })
    ).quotation;
  /** These tests look at each answer, so the client sends every call once. */
  const once = () => sys.clientOf(1, { retry: false });
  const convert = (id: number) =>
    sys.client.sales.quotation.convert({ org_id: '1', userid: 'u1', quotation_id: id, invoicetype: 'invoiceout' });

  it('answers 504 outcome_unknown, takes no change meanwhile, and converts each quotation once when invoicing is back: by a retry, or by itself', async () => {
    const retried = await create();
    const abandoned = await create();

    await sys.system.stopService('invoicing');
    for (const q of [retried, abandoned]) {
      const down = await refusal(
        once().sales.quotation.convert({ org_id: '1', userid: 'u1', quotation_id: q.id, invoicetype: 'invoiceout' }),
      );
      // Sales says the conversion is pending; on a loaded machine the gateway's own timeout may speak
      // first. Either way the client is told the same thing: the outcome is unknown, a retry is safe.
      expect(down).toMatchObject({
        status: 504,
        code: 'outcome_unknown',
        message: expect.stringMatching(/Retrying (with the same Idempotency-Key )?is safe/),
      });
    }
    expect(await quotation(retried.id)).toMatchObject({
      quotation_status: 'draft',
      invoice_id: null,
      invoicenumber: null,
      quotation_total: 258.75,
    });
    // Sales cannot tell a dead invoicing from a slow one that made the invoice: the quotation stays as it was sent.
    const extra = refusal(sys.client.sales.quotation.addLine({ org_id: '1', userid: 'u1', quotation_id: retried.id, ...line }));
    expect(await extra).toMatchObject({ status: 400, code: 'invalid_state', message: expect.stringContaining('unfinished') });
    const cancel = refusal(sys.client.sales.quotation.cancel({ org_id: '1', userid: 'u1', quotation_id: retried.id }));
    expect(await cancel).toMatchObject({ status: 400, code: 'invalid_state', message: expect.stringContaining('will complete') });
    expect((await quotation(retried.id))?.quotation_total).toBe(258.75);

    await sys.system.startService('invoicing');
    const { invoice } = await once().sales.quotation.convert({
      org_id: '1',
      userid: 'u1',
      quotation_id: retried.id,
      invoicetype: 'invoiceout',
    });
    expect(invoice).toMatchObject({ invoicetype: 'invoiceout', invoicestatus: 'draft', partner: String(partnerId), invoicetotal: 258.75 });
    expect(await quotation(retried.id)).toMatchObject({
      quotation_status: 'converted',
      invoice_id: invoice.id,
      invoicenumber: invoice.invoicenumber,
    });

    // Nobody retries the other one: sales' recovery task converts it once its attempt is a few timeouts old.
    const recovered = await eventually(
      async () => {
        const q = await quotation(abandoned.id);
        expect(q).toMatchObject({ quotation_status: 'converted', invoice_id: expect.any(Number) });
        return q!;
      },
      { timeoutMs: 20_000 },
    );
    // The requests made while invoicing was down expired in its queue: one invoice per quotation.
    const invoices = await sys.client.invoicing.invoice.list({ org_id: '1', page_size: 100 });
    const byId = (a: number, b: number) => a - b;
    expect(invoices.invoices.map((i) => i.id).sort(byId)).toEqual([invoice.id, recovered.invoice_id as number].sort(byId));
    await eventually(async () => expect(await committed()).toBe(2 * 258.75));
    // Another convert of either is refused: a quotation converts once.
    expect(await refusal(convert(abandoned.id))).toMatchObject({
      status: 400,
      code: 'invalid_state',
      message: expect.stringContaining('already converted'),
    });
  }, 60_000);
});
