import { makePng } from '../support/png';
import { tinyLogo } from '../../packages/documents/test/fixtures';
import { fatalFailures, prepareRules } from '../support/einvoice';
import { pdfText } from '../support/pdf';
import type { Client } from '@bo/client';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

type RenderFormat = Parameters<Client['invoicing']['invoice']['render']>[0]['format'];
const formats: RenderFormat[] = ['pdf', 'ubl', 'cii', 'facturx'];

/** Another logo than the first: 3 × 1 black pixels. */
const newLogo = makePng({ width: 3, height: 1, colourType: 2 });

/**
 * Issued documents never change (docs/invoicing.md, docs/sales.md): a validated invoice and a sent
 * quotation render to the same bytes in every format whatever is edited afterwards (the partner, the
 * organization profile, its logo, the partner's currency); drafts render with the data as it is now,
 * marked DRAFT; every document keeps the currency it was made with.
 */
describe('issued documents through the gateway', () => {
  let sys: TestSystem;
  let product = '';
  const api = () => sys.client;
  const who = { org_id: 1, userid: '7' } as const;

  const renderAll = async (id: number) => {
    const files = new Map<RenderFormat, Buffer>();
    for (const format of formats) {
      const body = await api().invoicing.invoice.render({ org_id: 1, id, format });
      files.set(format, Buffer.from(body.content_base64, 'base64'));
    }
    return files;
  };
  const renderPdf = async (id: number) =>
    Buffer.from((await api().invoicing.invoice.render({ org_id: 1, id, format: 'pdf' })).content_base64, 'base64');
  const renderQuotation = async (quotation_id: number) =>
    Buffer.from((await api().sales.quotation.render({ org_id: 1, quotation_id, format: 'pdf' })).content_base64, 'base64');
  const newInvoice = async (partner: number) =>
    (
      await api().invoicing.invoice.create({
        ...who,
        invoicetype: 'invoiceout',
        partner: String(partner),
        invoicedatetime: '2026-11-02T09:30:00',
        invoicedue: '2026-12-02',
        line_items: [{ product_id: product, quantity: 2, price: 150, tax_rate: 20, tax_included: false }],
      })
    ).invoice;
  const newQuotation = async (partner: number, quotation_status: 'draft' | 'sent') =>
    (
      await api().sales.quotation.create({
        ...who,
        partner: String(partner),
        quotation_type: 'proforma',
        quotation_status,
        quotation_date: '2026-11-02T10:00:00',
        valid_until: '2026-12-31',
        line_items: [{ product_id: product, quantity: 1, price: 100, tax_rate: 20, tax_included: false }],
      })
    ).quotation;

  beforeAll(async () => {
    prepareRules();
    sys = await startTestSystem();
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
      logo_png: tinyLogo.toString('base64'),
    });
    product = String((await api().catalog.product.create({ ...who, name: 'Consulting', type: 'service', uom: 'hour' })).product.id);
  }, 300_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it('a validated invoice renders to the same bytes in every format after the partner, the organization and its logo are edited; a draft shows the edits, marked DRAFT', async () => {
    const customer = (
      await api().partners.partner.create({
        ...who,
        partnername: 'Client Alpha SARL',
        partner_type: 'customer',
        address_line1: '5 rue de la Paix',
        city: 'Paris',
        postal_code: '75002',
        country: 'FR',
        tax_number: 'FR40303265045',
        email: 'billing@alpha.test',
        currency: 'EUR',
      })
    ).partner.id;
    const issued = await newInvoice(customer);
    expect(issued.currency).toBe('EUR');
    await api().invoicing.invoice.validate({ ...who, id: issued.id });
    const draft = await newInvoice(customer);
    expect(draft.currency).toBe('EUR');

    const before = await renderAll(issued.id);
    expect(fatalFailures('ubl', before.get('ubl')!.toString('utf8'))).toBe('');
    expect(before.get('ubl')!.toString('utf8')).toContain('<cbc:RegistrationName>Client Alpha SARL</cbc:RegistrationName>');
    // Rendering again changes nothing, Factur-X included (it is dated by the invoice, not the clock).
    for (const [format, bytes] of await renderAll(issued.id)) expect([format, bytes.equals(before.get(format)!)]).toEqual([format, true]);

    await api().partners.partner.edit({
      ...who,
      partner_id: customer,
      partnername: 'Client Beta GmbH',
      address_line1: 'Unter den Linden 1',
      city: 'Berlin',
      postal_code: '10117',
      country: 'DE',
      tax_number: 'DE136695976',
      email: 'rechnung@beta.test',
      currency: 'USD',
    });
    await api().partners.organization.set({
      ...who,
      legal_name: 'Acme Holdings Plc',
      address_line1: '99 New Road',
      city: 'Cork',
      iban: 'DE89 3704 0044 0532 0130 00',
      bic: 'COBADEFFXXX',
      logo_png: newLogo.toString('base64'),
    });

    const after = await renderAll(issued.id);
    for (const format of formats) expect([format, after.get(format)!.equals(before.get(format)!)]).toEqual([format, true]);
    const text = pdfText(after.get('pdf')!);
    for (const kept of ['Acme Ltd', '1 Main Street', 'Client Alpha SARL', '5 rue de la Paix', 'IBAN: IE29AIBK93115212345678'])
      expect(text).toContain(kept);
    expect(text).toMatch(/Total €360\.00/);
    expect(text).not.toMatch(/Beta|Holdings|DE89/);

    // The draft shows the data as it is now, marked DRAFT, in the currency it was made with.
    const draftText = pdfText(await renderPdf(draft.id));
    expect(draftText).toMatch(/DRAFT Invoice/);
    for (const now of ['Acme Holdings Plc', '99 New Road', 'Client Beta GmbH', 'Unter den Linden 1', 'IBAN: DE89370400440532013000'])
      expect(draftText).toContain(now);
    expect(draftText).toMatch(/Total €360\.00/);

    // Validating the draft freezes what it shows now: its e-invoice names the new parties, in its own currency.
    await api().invoicing.invoice.validate({ ...who, id: draft.id });
    const ubl = Buffer.from((await api().invoicing.invoice.render({ org_id: 1, id: draft.id, format: 'ubl' })).content_base64, 'base64');
    const xml = ubl.toString('utf8');
    expect(xml).toContain('<cbc:RegistrationName>Client Beta GmbH</cbc:RegistrationName>');
    expect(xml).toContain('<cbc:RegistrationName>Acme Holdings Plc</cbc:RegistrationName>');
    expect(xml).toContain('<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>');

    // A new invoice takes the partner's new currency, once invoicing has heard of the edit.
    await eventually(async () => expect((await newInvoice(customer)).currency).toBe('USD'));
  }, 180_000);

  it("stores a document's currency when it is made: the partner's, else the organization's default; later edits of either never change it", async () => {
    const plain = (
      await api().partners.partner.create({
        ...who,
        partnername: 'No Currency Ltd',
        partner_type: 'customer',
        country: 'IE',
        email: 'n@c.test',
      })
    ).partner.id;
    // Invoicing and sales learn the organization's default currency from its profile event.
    const invoice = await eventually(async () => {
      const made = await newInvoice(plain);
      expect(made.currency).toBe('EUR');
      return made;
    });
    const quotation = await eventually(async () => {
      const made = await newQuotation(plain, 'draft');
      expect(made.currency).toBe('EUR');
      return made;
    });

    // The organization's books have posted (the test before), so its currency stays EUR (docs/invoicing.md "The books' settings").
    const moved = await refusal(api().partners.organization.set({ ...who, default_currency: 'GBP' }));
    expect([moved.status, moved.errors?.map((e) => e.field)]).toEqual([400, ['default_currency']]);
    await api().partners.partner.edit({ ...who, partner_id: plain, currency: 'CHF' });
    await eventually(async () => expect((await newInvoice(plain)).currency).toBe('CHF'));

    // The documents made before keep theirs, drafts included, in every reply and render.
    const total = await api().sales.quotation.total({ org_id: 1, quotation_id: quotation.id, calculate_total: true });
    expect(total.currency).toBe('EUR');
    expect((await api().sales.quotation.get({ org_id: 1, quotation_id: quotation.id })).quotation.currency).toBe('EUR');
    expect(pdfText(await renderQuotation(quotation.id))).toMatch(/Total €120\.00/);
    // Converted, it becomes an invoice in the quotation's currency, not the partner's new one.
    const converted = await api().sales.quotation.convert({ ...who, quotation_id: quotation.id, invoicetype: 'invoiceout' });
    expect(pdfText(await renderPdf(converted.invoice.id))).toMatch(/Total €120\.00/);
    await api().invoicing.invoice.validate({ ...who, id: invoice.id });
    expect(pdfText(await renderPdf(invoice.id))).toMatch(/Total €360\.00/);
  }, 180_000);

  it('a sent proforma renders to the same bytes after the partner and the organization are edited; back to draft it shows them as they are now', async () => {
    const customer = (
      await api().partners.partner.create({ ...who, partnername: 'Gamma Oy', partner_type: 'customer', country: 'FI', currency: 'EUR' })
    ).partner.id;
    const sent = await newQuotation(customer, 'sent');
    const drafted = await newQuotation(customer, 'draft');
    const before = await renderQuotation(sent.id);
    expect(pdfText(before)).toContain('Gamma Oy');

    await api().partners.partner.edit({ ...who, partner_id: customer, partnername: 'Delta AB', country: 'SE' });
    await api().partners.organization.set({ ...who, legal_name: 'Acme Nordics Ltd', iban: 'FI21 1234 5600 0007 85' });

    expect((await renderQuotation(sent.id)).equals(before)).toBe(true);
    // Sending the draft freezes the parties as they are now.
    await api().sales.quotation.edit({ ...who, quotation_id: drafted.id, quotation_status: 'sent' });
    const sentLater = await renderQuotation(drafted.id);
    expect(pdfText(sentLater)).toContain('Delta AB');
    expect(pdfText(sentLater)).toContain('Acme Nordics Ltd');
    await api().partners.partner.edit({ ...who, partner_id: customer, partnername: 'Epsilon AS' });
    expect((await renderQuotation(drafted.id)).equals(sentLater)).toBe(true);

    // Back to draft: the data as it is now, marked DRAFT.
    await api().sales.quotation.edit({ ...who, quotation_id: sent.id, quotation_status: 'draft' });
    const text = pdfText(await renderQuotation(sent.id));
    expect(text).toContain('DRAFT');
    expect(text).toContain('Epsilon AS');
    expect(pdfText(before)).not.toContain('Epsilon AS');
  }, 180_000);

  it('an invoice in another currency states its VAT in the accounting currency too (BT-6, BT-111): frozen when it is issued, as it is now on a draft', async () => {
    const customer = (
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
    const usd = (draft: string) =>
      api().invoicing.invoice.create({
        ...who,
        invoicetype: 'invoiceout',
        partner: String(customer),
        invoicedatetime: '2026-11-02T09:30:00',
        currency: 'USD',
        exchange_rate: 0.92,
        comments: draft,
        line_items: [{ product_id: product, quantity: 2, price: 150, tax_rate: 20, tax_included: false }],
      });
    // The organization books in EUR: setting it again is no change.
    await api().partners.organization.set({ ...who, default_currency: 'EUR' });
    const issued = (await usd('issued')).invoice;
    const draft = (await usd('draft')).invoice;
    await eventually(async () => expect(pdfText(await renderPdf(draft.id))).toContain('Tax in EUR'));
    await api().invoicing.invoice.validate({ ...who, id: issued.id });

    // VAT 60.00 USD at 0.92: 55.20 EUR, in both syntaxes and on the PDF.
    const before = await renderAll(issued.id);
    const ubl = before.get('ubl')!.toString('utf8');
    expect(fatalFailures('ubl', ubl)).toBe('');
    expect(ubl).toContain('<cbc:TaxCurrencyCode>EUR</cbc:TaxCurrencyCode>');
    expect(ubl).toMatch(/<cac:TaxTotal>\s*<cbc:TaxAmount currencyID="EUR">55\.20<\/cbc:TaxAmount>/);
    expect(fatalFailures('cii', before.get('cii')!.toString('utf8'))).toBe('');
    expect(before.get('cii')!.toString('utf8')).toMatch(/<ram:TaxTotalAmount currencyID="EUR">55\.20</);
    expect(pdfText(before.get('pdf')!)).toContain('Tax in EUR');

    // Its accounting currency cannot move now that the books have posted; a new rate in the table changes no issued render.
    const moved = await refusal(api().partners.organization.set({ ...who, default_currency: 'USD' }));
    expect([moved.status, moved.errors?.map((e) => e.field)]).toEqual([400, ['default_currency']]);
    await api().invoicing.exchange_rate.set({ ...who, action: 'set', currency: 'USD', date: '2026-11-01', rate: '0.95' });
    for (const [format, bytes] of await renderAll(issued.id)) expect([format, bytes.equals(before.get(format)!)]).toEqual([format, true]);
  }, 180_000);
});
