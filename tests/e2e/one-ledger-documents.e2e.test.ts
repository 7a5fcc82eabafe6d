import type { Client } from '@bo/client';
import { serviceDefinitions } from '@bo/launcher';
import { createDb, migrate, type Knex } from '@bo/runtime';
import { einvoiceFailuresOfMany, prepareRules } from '../support/einvoice';
import { pdfText } from '../support/pdf';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

type RenderFormat = Parameters<Client['invoicing']['invoice']['render']>[0]['format'];
const formats: RenderFormat[] = ['pdf', 'ubl', 'cii', 'facturx'];

/**
 * Issue 40, "One ledger, one truth", the documents' part: what an invoice's PDF and e-invoices state
 * is what its answer, its journal entry and the VAT report hold (cases 2 and 3), an issued invoice's
 * files never change (case 10), and documents stored without a currency have the organization's
 * (case 13).
 */
describe('one ledger, one truth: the documents', () => {
  let sys: TestSystem;
  let db: Knex;
  let product = '';
  let customer = 0;
  let american = 0;
  const who = { org_id: 1, userid: '7' } as const;
  const api = () => sys.client;

  const render = async (id: number, format: RenderFormat) =>
    Buffer.from((await api().invoicing.invoice.render({ org_id: 1, id, format })).content_base64, 'base64');
  const renderAll = async (id: number) => {
    const files = new Map<RenderFormat, Buffer>();
    for (const format of formats) files.set(format, await render(id, format));
    return files;
  };
  /** Every e-invoice of the invoice passes the official EN 16931 schemas and rules. */
  const expectValidEInvoices = async (files: Map<RenderFormat, Buffer>) => {
    const failures = await einvoiceFailuresOfMany([
      { syntax: 'ubl', xml: files.get('ubl')!.toString('utf8') },
      { syntax: 'cii', xml: files.get('cii')!.toString('utf8') },
    ]);
    expect(failures).toEqual(['', '']);
  };
  /** The entry's lines on an account, as [debit, credit]. */
  const posted = async (entryId: number, account: string) =>
    (await db('journal_lines').where({ entry_id: entryId, account }).orderBy('id')).map((l) => [
      Number(l.debit).toFixed(2),
      Number(l.credit).toFixed(2),
    ]);
  const issue = async (fields: Record<string, unknown>, lines: Array<Record<string, unknown>>) => {
    const invoice = (
      await api().invoicing.invoice.create({
        ...who,
        invoicetype: 'invoiceout',
        partner: String(customer),
        invoicedatetime: '2026-10-05T09:30:00',
        invoicedue: '2026-11-05',
        line_items: lines.map((l) => ({ product_id: product, tax_included: false, ...l })) as never,
        ...fields,
      })
    ).invoice;
    const validated = await api().invoicing.invoice.validate({ ...who, id: invoice.id, override_credit_limit: true });
    return { ...invoice, journal_entry_id: validated.invoice.journal_entry_id };
  };

  beforeAll(async () => {
    prepareRules();
    sys = await startTestSystem();
    db = createDb(sys.databaseUrl, 'invoicing', 2);
    await api().partners.organization.set({
      ...who,
      legal_name: 'Acme Ltd',
      address_line1: '1 Main Street',
      city: 'Dublin',
      postal_code: 'D02 X285',
      country: 'IE',
      vat_id: 'IE6388047V',
      company_id: '123456',
      email: 'billing@acme.test',
      iban: 'IE29 AIBK 9311 5212 3456 78',
      bic: 'AIBKIE2D',
      default_currency: 'EUR',
    });
    const buyer = {
      partner_type: 'customer',
      address_line1: '5 rue de la Paix',
      city: 'Paris',
      postal_code: '75002',
      country: 'FR',
      email: 'ap@client.test',
    } as const;
    customer = (await api().partners.partner.create({ ...who, ...buyer, partnername: 'Client SARL', tax_number: 'FR40303265045' })).partner
      .id;
    american = (
      await api().partners.partner.create({
        ...who,
        partnername: 'Zeta Inc',
        partner_type: 'customer',
        address_line1: '1 Market Street',
        city: 'San Francisco',
        postal_code: '94105',
        country: 'US',
        email: 'ap@zeta.test',
        currency: 'USD',
      })
    ).partner.id;
    product = String((await api().catalog.product.create({ ...who, name: 'Consulting', type: 'service', uom: 'hour' })).product.id);
    await eventually(async () => expect((await db('organization_settings').where({ org_id: 1 }).first())?.default_currency).toBe('EUR'));
  }, 300_000);
  afterAll(async () => {
    await db?.destroy();
    await sys?.stop();
  });

  it('case 2: a USD invoice at 0.9234 with VAT 12.35 at 20 % and 7.65 at 10 % states 18.46 EUR of VAT (BT-111), what the journal and the VAT report post', async () => {
    const invoice = (
      await api().invoicing.invoice.create({
        ...who,
        invoicetype: 'invoiceout',
        partner: String(american),
        invoicedatetime: '2026-09-10T09:30:00',
        currency: 'USD',
        exchange_rate: 0.9234,
        line_items: [
          { product_id: product, quantity: 1, price: 61.75, tax_rate: 20, tax_included: false },
          { product_id: product, quantity: 1, price: 76.5, tax_rate: 10, tax_included: false },
        ],
      })
    ).invoice;
    const validated = await api().invoicing.invoice.validate({ ...who, id: invoice.id, override_credit_limit: true });

    // The journal posts each category's VAT converted on its own: 11.40 + 7.06.
    expect(await posted(validated.invoice.journal_entry_id, '2200 Tax Payable')).toEqual([
      ['0.00', '11.40'],
      ['0.00', '7.06'],
    ]);
    const vat = await api().invoicing.report.run({ org_id: 1, report: 'vat', date_from: '2026-09-01', date_to: '2026-09-30' });
    expect(vat.report === 'vat' && vat.totals.output_tax).toBe(18.46);

    // Every document states the same 18.46 EUR.
    const files = await renderAll(invoice.id);
    const ubl = files.get('ubl')!.toString('utf8');
    expect(ubl).toContain('<cbc:TaxCurrencyCode>EUR</cbc:TaxCurrencyCode>');
    expect(ubl).toMatch(/<cac:TaxTotal>\s*<cbc:TaxAmount currencyID="EUR">18\.46<\/cbc:TaxAmount>/);
    expect(files.get('cii')!.toString('utf8')).toMatch(/<ram:TaxTotalAmount currencyID="EUR">18\.46</);
    expect(pdfText(files.get('pdf')!)).toMatch(/Tax in EUR\s*€18\.46/);
    await expectValidEInvoices(files);
  }, 120_000);

  it('case 3: under line rounding, 3 × 19.99 at 19 % and 7 × 0.35 at 7 % tax included: the breakdown adds up to the invoice tax 9.74, and BT-112 = BT-109 + BT-110', async () => {
    const invoice = await issue({}, [
      { quantity: 3, price: 19.99, tax_rate: 19, tax_included: true },
      { quantity: 7, price: 0.35, tax_rate: 7, tax_included: true },
    ]);
    expect([invoice.subtotal, invoice.tax_amount, invoice.invoicetotal]).toEqual([52.68, 9.74, 62.42]);

    const files = await renderAll(invoice.id);
    const ubl = files.get('ubl')!.toString('utf8');
    const taxTotal = /<cac:TaxTotal>\s*<cbc:TaxAmount currencyID="EUR">([\d.]+)<\/cbc:TaxAmount>/.exec(ubl)?.[1];
    const subtotals = [...ubl.matchAll(/<cac:TaxSubtotal>[\s\S]*?<cbc:TaxAmount currencyID="EUR">([\d.]+)</g)].map((m) => m[1]);
    expect(taxTotal).toBe('9.74');
    expect(subtotals).toEqual(['9.58', '0.16']);
    expect(ubl).toContain('<cbc:TaxExclusiveAmount currencyID="EUR">52.68</cbc:TaxExclusiveAmount>');
    expect(ubl).toContain('<cbc:TaxInclusiveAmount currencyID="EUR">62.42</cbc:TaxInclusiveAmount>');
    expect(ubl).toContain('<cbc:PayableAmount currencyID="EUR">62.42</cbc:PayableAmount>');
    expect(ubl).not.toContain('PayableRoundingAmount');
    const cii = files.get('cii')!.toString('utf8');
    expect(cii).toMatch(/<ram:TaxTotalAmount currencyID="EUR">9\.74</);
    expect([...cii.matchAll(/<ram:CalculatedAmount>([\d.]+)</g)].map((m) => m[1])).toEqual(['9.58', '0.16']);
    await expectValidEInvoices(files);

    // The journal posts exactly those figures, and nothing to rounding.
    expect(await posted(invoice.journal_entry_id, '2200 Tax Payable')).toEqual([
      ['0.00', '9.58'],
      ['0.00', '0.16'],
    ]);
    expect(await posted(invoice.journal_entry_id, '7600 Rounding Differences')).toEqual([]);
  }, 120_000);

  it("case 10: an issued invoice's UBL, CII, Factur-X and PDF are the same bytes after a part payment, and kept: nothing that changes later reaches them", async () => {
    const invoice = await issue({}, [{ quantity: 2, price: 150, tax_rate: 20 }]);
    // Racing first renders keep one file and answer it both.
    const [first, second] = await Promise.all([render(invoice.id, 'pdf'), render(invoice.id, 'pdf')]);
    expect(first.equals(second)).toBe(true);
    const before = await renderAll(invoice.id);
    expect(before.get('pdf')!.equals(first)).toBe(true);
    await expectValidEInvoices(before);
    // The issued document states the whole total due: payments are no part of it.
    expect(before.get('ubl')!.toString('utf8')).toContain('<cbc:PayableAmount currencyID="EUR">360.00</cbc:PayableAmount>');

    await api().invoicing.invoice.registerPayment({ ...who, id: invoice.id, amount: 100, payment_date: '2026-10-06' });
    const after = await renderAll(invoice.id);
    for (const format of formats) expect([format, after.get(format)!.equals(before.get(format)!)]).toEqual([format, true]);
    expect(after.get('ubl')!.toString('utf8')).not.toMatch(/<cbc:PrepaidAmount currencyID="EUR">100\.00/);

    // Kept as first rendered, once per format: even a change of the invoice's own row renders nothing anew.
    const kept = await db('issued_files').where({ org_id: 1, invoice_id: invoice.id }).orderBy('format').select('format');
    expect(kept.map((r) => r.format)).toEqual(['cii', 'facturx', 'pdf', 'ubl']);
    await db('invoices').where({ id: invoice.id }).update({ comments: 'edited behind the documents' });
    for (const [format, bytes] of await renderAll(invoice.id)) expect([format, bytes.equals(before.get(format)!)]).toEqual([format, true]);
  }, 120_000);

  it("case 13: documents stored without a currency take the organization's in migration 025; cash in another currency is then refused against them", async () => {
    const invoice = await issue({}, [{ quantity: 1, price: 100, tax_rate: 20 }]);
    const payment = await api().invoicing.invoice.registerPayment({ ...who, id: invoice.id, amount: 20, payment_date: '2026-10-06' });
    // As documents were stored before currencies: none, the journal in the organization's.
    await db('invoices').where({ id: invoice.id }).update({ currency: null });
    await db('payments').where({ id: payment.payment.id }).update({ currency: null });
    const migration = '025_documents_without_currency_take_the_accounting_currency';
    await db('schema_migrations').where({ name: migration }).delete();
    expect(await migrate(db, 'invoicing', serviceDefinitions.invoicing.migrations)).toEqual([migration]);

    expect((await db('invoices').where({ id: invoice.id }).first()).currency).toBe('EUR');
    expect((await db('payments').where({ id: payment.payment.id }).first()).currency).toBe('EUR');
    const refused = await refusal(
      api().invoicing.payment.create({
        ...who,
        action: 'create',
        partner: String(customer),
        amount: 10,
        currency: 'USD',
        exchange_rate: 0.9,
        direction: 'in',
        payment_date: '2026-10-07',
        allocations: [{ invoice_id: invoice.id, amount: 10 }],
      }),
    );
    expect([refused.status, refused.code, (refused.errors ?? []).map((e) => e.field)]).toEqual([400, 'validation_failed', ['currency']]);
    const after = await api().invoicing.invoice.balances({ org_id: 1, id: invoice.id });
    expect(after.invoices[0]!.due_amount).toBe(100);
  }, 120_000);
});
