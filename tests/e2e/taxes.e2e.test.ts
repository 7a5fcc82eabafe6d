import type { OperationNamed, RequestBody } from '@bo/client';
import { createDb, type Knex } from '@bo/runtime';
import { newProducts } from '../support/catalog';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

type InvoiceRequest = RequestBody<OperationNamed<'invoicing.invoice.create'>>;
type Line = NonNullable<InvoiceRequest['line_items']>[number];

/**
 * Taxes through the gateway (docs/invoicing.md, "Taxes and rounding"): the refusals of the tax rules,
 * each named by its field, and the ERPNext #58712 case under both rounding policies.
 */
describe('document taxes through the gateway', () => {
  let sys: TestSystem;
  let invoicingDb: Knex;
  let product = 0;
  let customer = 0;
  let customerWithoutVat = 0;
  let vendor = 0;

  beforeAll(async () => {
    sys = await startTestSystem({ services: ['partners', 'catalog', 'invoicing'], bus: 'in-process' });
    invoicingDb = createDb(sys.databaseUrl, 'invoicing', 2);
    [product] = (await newProducts(sys, ['Service'])) as [number];
    await sys.client.partners.organization.set({ org_id: '1', legal_name: 'Seller GmbH', vat_id: 'DE123456789', default_currency: 'EUR' });
    const partner = async (partnername: string, partner_type: 'customer' | 'vendor', tax_number?: string) =>
      (
        await sys.client.partners.partner.create({
          org_id: '1',
          partnername,
          partner_type,
          currency: 'EUR',
          ...(tax_number ? { tax_number } : {}),
        })
      ).partner.id;
    customer = await partner('Buyer BV', 'customer', 'NL123456789B01');
    customerWithoutVat = await partner('Consumer', 'customer');
    vendor = await partner('Vendor SARL', 'vendor', 'FR12345678901');
    await eventually(async () => {
      const row = await invoicingDb('organization_settings').where({ org_id: 1 }).first();
      expect(row?.default_currency).toBe('EUR');
    });
  });
  afterAll(async () => {
    await invoicingDb?.destroy();
    await sys?.stop();
  });

  const line = (fields: Partial<Line> = {}): Line => ({
    product_id: product,
    quantity: 1,
    price: 100,
    tax_rate: 20,
    tax_included: false,
    ...fields,
  });
  const create = (fields: Partial<InvoiceRequest>) =>
    sys.client.invoicing.invoice.create({
      org_id: '1',
      invoicetype: 'invoiceout',
      partner: String(customer),
      invoicedatetime: '2026-03-02T10:00:00',
      ...fields,
    });
  const validate = (id: number) => sys.client.invoicing.invoice.validate({ org_id: '1', id, override_credit_limit: true });
  /** The fields a refusal names. */
  const fieldsOf = async (call: Promise<unknown>) => {
    const err = await refusal(call);
    expect(err.status).toBe(400);
    return (err.errors ?? []).map((e) => e.field);
  };

  it('refuses on create, by field, what the category rules refuse', async () => {
    const refused = (lines: Line[], extra: Partial<InvoiceRequest> = {}) => fieldsOf(create({ line_items: lines, ...extra }));
    // S has a rate above 0; Z, E, AE, K, G, O a rate of 0.
    expect(await refused([line({ tax_category: 'S', tax_rate: 0 })])).toEqual(['line_items.0.tax_rate']);
    expect(await refused([line({ tax_category: 'Z', tax_rate: 20 })])).toEqual(['line_items.0.tax_rate']);
    expect(await refused([line({ tax_category: 'K', tax_rate: 7, tax_exemption_code: 'VATEX-EU-IC' })])).toEqual(['line_items.0.tax_rate']);
    // E, AE, K, G, O give a reason or a code.
    expect(await refused([line({ tax_category: 'E', tax_rate: 0 })])).toEqual(['line_items.0.tax_exemption_reason']);
    expect(await refused([line({ tax_category: 'G', tax_rate: 0 })])).toEqual(['line_items.0.tax_exemption_reason']);
    // S, Z give none.
    expect(await refused([line({ tax_exemption_reason: 'Because' })])).toEqual(['line_items.0.tax_exemption_reason']);
    expect(await refused([line({ tax_category: 'Z', tax_rate: 0, tax_exemption_code: 'VATEX-EU-132' })])).toEqual([
      'line_items.0.tax_exemption_code',
    ]);
    // The code is in the VATEX list, and goes with the category.
    expect(await refused([line({ tax_category: 'E', tax_rate: 0, tax_exemption_code: 'VATEX-EU-NOPE' })])).toEqual([
      'line_items.0.tax_exemption_code',
    ]);
    expect(await refused([line({ tax_category: 'E', tax_rate: 0, tax_exemption_code: 'VATEX-EU-IC' })])).toEqual([
      'line_items.0.tax_exemption_code',
    ]);
    // One reason per category and document.
    expect(
      await refused([
        line({ tax_category: 'E', tax_rate: 0, tax_exemption_reason: 'Medical care' }),
        line({ tax_category: 'E', tax_rate: 0, tax_exemption_reason: 'Education' }),
      ]),
    ).toEqual(['line_items.1.tax_exemption_reason']);
    // IGIC (L) takes a rate above 0 on lines, allowances and charges: the CII rules refuse it at 0 (BR-AF-05..07).
    expect(await refused([line({ tax_category: 'L', tax_rate: 0 })])).toEqual(['line_items.0.tax_rate']);
    expect(
      await refused([line({ tax_category: 'L', tax_rate: 7 })], {
        allowances_charges: [{ charge: true, amount: 5, tax_category: 'L', tax_rate: 0, reason: 'Freight' }],
      }),
    ).toEqual(['allowances_charges.0.tax_rate']);
    // O shares the document with no other category.
    expect(await refused([line(), line({ tax_category: 'O', tax_rate: 0, tax_exemption_reason: 'Not a supply' })])).toEqual([
      'line_items.1.tax_category',
    ]);
    // An unknown category or currency is refused by the request schema, a currency without a minor unit by the rules.
    expect(await refused([line({ tax_category: 'X' as never })])).toEqual(['line_items.0.tax_category']);
    expect(await refused([line()], { currency: 'ZZZ' })).toEqual(['currency']);
    expect(await refused([line()], { currency: 'XAU' })).toEqual(['currency']);
    // reverse_charge_rate belongs to AE rows; an allowance states its reason.
    expect(await refused([line({ reverse_charge_rate: 19 })])).toEqual(['line_items.0.reverse_charge_rate']);
    expect(await refused([line()], { allowances_charges: [{ charge: false, amount: 5, tax_rate: 20 }] })).toEqual([
      'allowances_charges.0.reason',
    ]);
    // An allowance may not take its category's base below 0.
    expect(await refused([line()], { allowances_charges: [{ charge: false, amount: 150, tax_rate: 20, reason: 'Too much' }] })).toEqual([
      'allowances_charges.0.amount',
    ]);
  });

  it('refuses on validation what the parties make impossible: AE and K need both VAT ids, a vendor AE line its self-assessed rate', async () => {
    const ae = line({ tax_category: 'AE', tax_rate: 0, tax_exemption_code: 'VATEX-EU-AE' });
    const k = line({ tax_category: 'K', tax_rate: 0, tax_exemption_reason: 'Intra-community supply' });
    const noVat = await create({ partner: String(customerWithoutVat), line_items: [ae] });
    expect(await fieldsOf(validate(noVat.invoice.id))).toEqual(['buyer.vat_id']);
    const noVatK = await create({ partner: String(customerWithoutVat), line_items: [k] });
    expect(await fieldsOf(validate(noVatK.invoice.id))).toEqual(['buyer.vat_id']);
    // Nothing changed: still a draft.
    expect((await sys.client.invoicing.invoice.balances({ org_id: '1', id: noVat.invoice.id })).invoices[0]?.invoicestatus).toBe('draft');
    // With both VAT ids it goes through.
    const fine = await create({ line_items: [ae, k] });
    await validate(fine.invoice.id);

    const bill = await create({ invoicetype: 'invoicein', partner: String(vendor), line_items: [ae] });
    expect(await fieldsOf(validate(bill.invoice.id))).toEqual(['line_items.0.reverse_charge_rate']);
    const selfAssessed = await create({
      invoicetype: 'invoicein',
      partner: String(vendor),
      line_items: [{ ...ae, reverse_charge_rate: 19 }],
    });
    const { invoice } = await validate(selfAssessed.invoice.id);
    const posted = await journalOf(invoice.journal_entry_id);
    expect(posted).toEqual([
      ['2000 Accounts Payable', '0.00', '100.00'],
      ['5000 Purchases', '100.00', '0.00'],
      ['1400 Tax Receivable', '19.00', '0.00'],
      ['2200 Tax Payable', '0.00', '19.00'],
    ]);
  });

  it('refuses to validate a document in another currency than the organization books in without an exchange rate', async () => {
    const usd = await create({ currency: 'USD', line_items: [line()] });
    expect(usd.invoice.currency).toBe('USD');
    expect(await fieldsOf(validate(usd.invoice.id))).toEqual(['exchange_rate']);
    const rated = await create({ currency: 'USD', exchange_rate: '0.9', line_items: [line({ price: 33.33 })] });
    const { invoice } = await validate(rated.invoice.id);
    // 33.33 + 6.67 VAT = 40.00 USD, booked at 0.9: 36.00 EUR receivable against 30.00 + 6.00 (6.003).
    expect(await journalOf(invoice.journal_entry_id)).toEqual([
      ['1200 Accounts Receivable', '36.00', '0.00'],
      ['4000 Sales Revenue', '0.00', '30.00'],
      ['2200 Tax Payable', '0.00', '6.00'],
    ]);
  });

  it('keeps the ERPNext #58712 case exact: two lines at 10.00 including 19 %', async () => {
    const lines = [line({ price: 10, tax_rate: 19, tax_included: true }), line({ price: 10, tax_rate: 19, tax_included: true })];
    const byLine = (await create({ line_items: lines })).invoice;
    expect(byLine.line_items.map((l) => [l.subtotal, l.tax_amount, l.total])).toEqual([
      [8.4, 1.6, 10],
      [8.4, 1.6, 10],
    ]);
    // Under line rounding the category's VAT is what its lines' VAT adds up to (16.80 x 19 % = 3.192, within EN 16931's tolerance).
    expect(byLine).toMatchObject({
      subtotal: 16.8,
      vat_total: 3.2,
      rounding_amount: 0,
      invoicetotal: 20,
      tax_amount: 3.2,
      rounding: 'line',
    });
    expect(byLine.tax_breakdown).toEqual([
      { tax_category: 'S', tax_rate: 19, taxable_amount: 16.8, tax_amount: 3.2, exemption_reason: null, exemption_code: null },
    ]);

    await sys.client.partners.organization.set({ org_id: '1', rounding: 'document' });
    await eventually(async () =>
      expect((await invoicingDb('organization_settings').where({ org_id: 1 }).first())?.rounding).toBe('document'),
    );
    const byDocument = (await create({ line_items: lines })).invoice;
    expect(byDocument.line_items.map((l) => [l.subtotal, l.tax_amount, l.total])).toEqual([
      [8.41, 1.59, 10],
      [8.4, 1.6, 10],
    ]);
    expect(byDocument).toMatchObject({ subtotal: 16.81, vat_total: 3.19, rounding_amount: 0, invoicetotal: 20, rounding: 'document' });
    const { invoice } = await validate(byDocument.id);
    expect(await journalOf(invoice.journal_entry_id)).toEqual([
      ['1200 Accounts Receivable', '20.00', '0.00'],
      ['4000 Sales Revenue', '0.00', '16.81'],
      ['2200 Tax Payable', '0.00', '3.19'],
    ]);
    // The line-rounded draft validated now takes the organization's policy, and keeps it.
    await validate(byLine.id);
    const issued = await invoicingDb('invoices').where({ id: byLine.id }).first();
    expect([issued.rounding, issued.invoicetotal, issued.subtotal]).toEqual(['document', '20.00', '16.81']);
    await sys.client.partners.organization.set({ org_id: '1', rounding: 'line' });
  });

  async function journalOf(entryId: number): Promise<string[][]> {
    const rows = await invoicingDb('journal_lines').where({ entry_id: entryId }).orderBy('id');
    return rows.map((r: { account: string; debit: string; credit: string }) => [
      r.account,
      Number(r.debit).toFixed(2),
      Number(r.credit).toFixed(2),
    ]);
  }
});
