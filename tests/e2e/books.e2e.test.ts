import type { invoicing } from '@bo/contracts';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

/** The reply of `report: "vat"`, told apart from the other reports' by its `report`. */
function vat(reply: invoicing.RunReportReply): invoicing.VatReportReply {
  if (reply.report !== 'vat') throw new Error(`expected the VAT report, got ${reply.report}`);
  return reply;
}

/** Exchange rates and the VAT report through the gateway, as a client calls them (docs/invoicing.md). */
describe('the books through the gateway: exchange rates and the VAT report', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem();
    await sys.client.partners.organization.set({ org_id: '1', userid: 'u1', legal_name: 'Books Ltd', default_currency: 'EUR' });
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
  });

  const rates = () => sys.client.invoicing.exchange_rate;

  it('sets, replaces, lists and deletes rates against the accounting currency', async () => {
    // The accounting currency reaches invoicing by the profile's event.
    const first = await eventually(() =>
      rates().set({ org_id: '1', userid: 'u1', action: 'set', currency: 'usd', date: '2026-03-02', rate: '0.92' }),
    );
    expect(first.exchange_rate).toMatchObject({ currency: 'USD', date: '2026-03-02', rate: 0.92, accounting_currency: 'EUR' });
    const replaced = await rates().set({ org_id: '1', userid: 'u1', action: 'set', currency: 'USD', date: '2026-03-02', rate: 0.9234 });
    expect(replaced.exchange_rate).toMatchObject({ id: first.exchange_rate.id, rate: 0.9234 });
    await rates().set({ org_id: '1', userid: 'u1', action: 'set', currency: 'USD', date: '2026-03-09', rate: 0.93 });
    const listed = await rates().list({ org_id: '1', action: 'list', currency: 'USD', date_from: '2026-03-01' });
    expect(listed.exchange_rates.map((r) => [r.date, r.rate])).toEqual([
      ['2026-03-09', 0.93],
      ['2026-03-02', 0.9234],
    ]);
    expect(listed.pagination.total_items).toBe(2);
    const deleted = await rates().delete({ org_id: '1', userid: 'u1', action: 'delete', currency: 'USD', date: '2026-03-09' });
    expect(deleted.exchange_rate.rate).toBe(0.93);
    // Another organization sees none of them.
    expect((await sys.clientOf(2).invoicing.exchange_rate.list({ org_id: '2', action: 'list' })).exchange_rates).toEqual([]);
  });

  it('refuses by name a rate of the accounting currency itself, a bad rate and an unknown action', async () => {
    const own = await refusal(rates().set({ org_id: '1', userid: 'u1', action: 'set', currency: 'EUR', date: '2026-03-02', rate: 1 }));
    expect([own.status, own.code, own.errors?.map((e) => e.field)]).toEqual([400, 'validation_failed', ['currency']]);
    const zero = await refusal(rates().set({ org_id: '1', userid: 'u1', action: 'set', currency: 'GBP', date: '2026-03-02', rate: 0 }));
    expect([zero.status, zero.code, zero.errors?.map((e) => e.field)]).toEqual([400, 'validation_failed', ['rate']]);
    const r = await sys.post('/invoicing/exchangerates', { org_id: '1', action: 'convert', currency: 'GBP' });
    expect(r.statusCode).toBe(400);
    const gone = await refusal(rates().delete({ org_id: '1', userid: 'u1', action: 'delete', currency: 'GBP', date: '2026-03-02' }));
    expect([gone.status, gone.code]).toEqual([400, 'not_found']);
  });

  it("posts a document in another currency at the table's rate on or before its date, and refuses it by name without one", async () => {
    const partner = (
      await sys.client.partners.partner.create({
        org_id: '1',
        userid: 'u1',
        action: 'create',
        partnername: 'Canadian Client',
        partner_type: 'customer',
      })
    ).partner;
    const product = (
      await sys.client.catalog.product.create({ org_id: '1', userid: 'u1', name: 'Consulting', type: 'service', price: 100 })
    ).product;
    const { invoice } = await eventually(() =>
      sys.client.invoicing.invoice.create({
        org_id: '1',
        userid: 'u1',
        invoicetype: 'invoiceout',
        partner: partner.id,
        currency: 'CAD',
        invoicedatetime: '2026-06-10T10:00:00',
        line_items: [{ product_id: product.id, quantity: 1, price: 100, tax_rate: 20, tax_included: false }],
      }),
    );
    const validate = () => sys.client.invoicing.invoice.validate({ org_id: '1', userid: 'u1', id: invoice.id, validate_invoice: true });
    // A rate after the invoice date does not apply to it.
    await rates().set({ org_id: '1', userid: 'u1', action: 'set', currency: 'CAD', date: '2026-06-11', rate: 0.6 });
    const none = await refusal(validate());
    expect([none.status, none.code, none.errors?.map((e) => e.field)]).toEqual([400, 'validation_failed', ['exchange_rate']]);
    await rates().set({ org_id: '1', userid: 'u1', action: 'set', currency: 'CAD', date: '2026-06-01', rate: 0.5 });
    const validated = await validate();
    // 120.00 CAD at 0.5: the journal posts 60.00 EUR, and the VAT report 10.00 EUR of VAT on a base of 50.00.
    const balances = await sys.client.invoicing.invoice.balances({ org_id: '1', id: invoice.id });
    expect(balances.invoices[0]?.journals.map((j) => [j.id, j.amount])).toEqual([[validated.invoice.journal_entry_id, 60]]);
    const june = vat(await sys.client.invoicing.report.run({ org_id: '1', report: 'vat', date_from: '2026-06-01', date_to: '2026-06-30' }));
    expect(june.rows).toEqual([{ direction: 'sales', tax_category: 'S', tax_rate: 20, base: 50, tax: 10 }]);
    expect(june.totals).toEqual({ output_tax: 10, input_tax: 0, net_payable: 10 });
  });

  it('reports the VAT of validated invoices and credit notes, equal to what the journal posted', async () => {
    const partner = (
      await sys.client.partners.partner.create({ org_id: '1', userid: 'u1', action: 'create', partnername: 'Client', partner_type: 'both' })
    ).partner;
    const product = (await sys.client.catalog.product.create({ org_id: '1', userid: 'u1', name: 'Service', type: 'service', price: 100 }))
      .product;
    const post = async (invoicetype: 'invoiceout' | 'creditout' | 'invoicein', day: string, price: number, tax_rate: number) => {
      const { invoice } = await eventually(() =>
        sys.client.invoicing.invoice.create({
          org_id: '1',
          userid: 'u1',
          invoicetype,
          partner: partner.id,
          invoicedatetime: `2026-05-${day}T10:00:00`,
          line_items: [{ product_id: product.id, quantity: 1, price, tax_rate, tax_included: false }],
        }),
      );
      await sys.client.invoicing.invoice.validate({ org_id: '1', userid: 'u1', id: invoice.id, validate_invoice: true });
    };
    await post('invoiceout', '03', 200, 21);
    await post('creditout', '10', 50, 21);
    await post('invoicein', '20', 100, 21);
    await post('invoiceout', '31', 1000, 21);

    const report = vat(
      await sys.client.invoicing.report.run({ org_id: '1', report: 'vat', date_from: '2026-05-01', date_to: '2026-05-30' }),
    );
    expect(report.currency).toBe('EUR');
    // 42.00 − 10.50 on sales, 21.00 on purchases; the invoice of the 31st is outside.
    expect(report.totals).toEqual({ output_tax: 31.5, input_tax: 21, net_payable: 10.5 });
    expect(report.rows.map((row) => [row.direction, row.tax])).toEqual([
      ['sales', 31.5],
      ['purchases', 21],
    ]);

    const unknown = await refusal(
      sys.client.invoicing.report.run({ org_id: '1', report: 'aged' as 'vat', date_from: '2026-05-01', date_to: '2026-05-30' }),
    );
    expect([unknown.status, unknown.code, unknown.errors?.map((e) => e.field)]).toEqual([400, 'validation_failed', ['report']]);
    const backwards = await refusal(
      sys.client.invoicing.report.run({ org_id: '1', report: 'vat', date_from: '2026-06-01', date_to: '2026-05-30' }),
    );
    expect(backwards.errors?.map((e) => e.field)).toEqual(['date_from']);
    const decade = await refusal(
      sys.client.invoicing.report.run({ org_id: '1', report: 'vat', date_from: '2016-05-01', date_to: '2026-05-30' }),
    );
    expect(decade.errors?.map((e) => e.field)).toEqual(['date_to']);
  });
});
