import { eventually, startTestSystem, type TestSystem } from '../support/system';

const today = new Date().toISOString().slice(0, 10);
const later = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
const line = { product_id: 7, product_name: 'Widget', quantity: 5, price: 50, discount: 10, tax_rate: 15, tax_included: false };

/** Conversion while the invoicing service is down: nothing half-done, and a retry once it is back makes one invoice. */
describe('sales conversion when invoicing is down', () => {
  let sys: TestSystem;
  let partnerId: number;
  beforeAll(async () => {
    // The gateway waits 3 s; sales waits 60% of that (1.8 s) for invoicing, so sales answers first.
    sys = await startTestSystem({ env: { RPC_TIMEOUT_MS: '3000' } });
    const created = await sys.post('/crm/editpatner', { org_id: '1', userid: 'u1', action: 'create', partnername: 'Outage Buyer', partner_type: 'customer', currency: 'EUR' });
    expect(created.statusCode).toBe(200);
    partnerId = created.body.partner.id;
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const quotation = async (id: number) =>
    (await sys.post('/sales/orderdetail', { org_id: '1', page_size: 100 })).body.quotations.find((q: { id: number }) => q.id === id);
  const committed = async () => (await sys.post('/crm/partners', { org_id: '1', partner_id: partnerId })).body.partner.committed;

  it('answers 504 with the quotation unchanged, takes no lines meanwhile, and converts once when invoicing is back', async () => {
    const q = (
      await sys.post('/sales/addline', {
        org_id: '1', userid: 'u1', action: 'create_quotation', partner: String(partnerId), quotation_type: 'quotation', quotation_status: 'draft',
        quotation_date: `${today}T10:00:00`, valid_until: later, line_items: [line],
      })
    ).body.quotation;
    const convert = () => sys.post('/sales/addline', { org_id: '1', userid: 'u1', action: 'convert_to_invoice', quotation_id: q.id, invoicetype: 'invoiceout' });

    await sys.system.stopService('invoicing');
    const down = await convert();
    expect(down).toMatchObject({ httpStatus: 504, statusCode: 504, body: { code: 'timeout', message: expect.stringContaining('quotation is unchanged') } });
    expect(await quotation(q.id)).toMatchObject({ quotation_status: 'draft', invoice_id: null, invoicenumber: null, quotation_total: 258.75 });
    // Sales cannot tell a dead invoicing from a slow one that made the invoice: the lines stay as they were sent.
    const extra = await sys.post('/sales/addline', { org_id: '1', userid: 'u1', action: 'add_line', quotation_id: q.id, ...line });
    expect(extra).toMatchObject({ statusCode: 400, body: { code: 'invalid_state', message: expect.stringContaining('unfinished') } });
    expect((await quotation(q.id)).quotation_total).toBe(258.75);

    await sys.system.startService('invoicing');
    const back = await convert();
    expect(back).toMatchObject({ statusCode: 200, body: { invoice: { invoicetype: 'invoiceout', invoicestatus: 'draft', partner: String(partnerId), invoicetotal: 258.75 } } });
    const invoice = back.body.invoice;
    expect(await quotation(q.id)).toMatchObject({ quotation_status: 'converted', invoice_id: invoice.id, invoicenumber: invoice.invoicenumber });
    // The request made while invoicing was down expired in its queue: one invoice in all.
    const invoices = await sys.post('/invoicing/listinvoices', { org_id: '1', page_size: 100 });
    expect(invoices.body.invoices.map((i: { id: number }) => i.id)).toEqual([invoice.id]);
    await eventually(async () => expect(await committed()).toBe(258.75));
  });
});
