import { tinyLogo } from '../../packages/documents/test/fixtures';
import { einvoiceFailures, prepareRules } from '../support/einvoice';
import { pdfAttachments, pdfInfo, pdfText, pdfXmp, savePage1Png } from '../support/pdf';
import type { Client } from '@bo/client';
import { eventually, refusal, startTestSystem, type TestSystem } from '../support/system';

type Org = 1 | 2;
type PartnerFields = Omit<Parameters<Client['partners']['partner']['create']>[0], 'org_id'>;
type InvoiceFields = Omit<Parameters<Client['invoicing']['invoice']['create']>[0], 'org_id' | 'line_items'>;
type Line = NonNullable<Parameters<Client['invoicing']['invoice']['create']>[0]['line_items']>[number];
type RenderFormat = Parameters<Client['invoicing']['invoice']['render']>[0]['format'];

/**
 * Rendered documents through the gateway (docs/documents.md): every invoice type as PDF, UBL, CII
 * and Factur-X, checked against the official schemas (UBL 2.1, CII D16B, Factur-X EN 16931) and
 * the EN 16931 rules, read with poppler's pdftotext and pdfinfo; a quotation as
 * PDF; and the refusals that say what to fix.
 */
describe('documents through the gateway', () => {
  let sys: TestSystem;
  const products = { consulting: '', widget: '', book: '', coffee: '', export: '' };
  let greek = 0;
  let russian = 0;
  let vendor = 0;
  let nowhere = 0;

  const api = (org: Org = 1) => sys.clientOf(org);
  const partner = async (fields: PartnerFields, org: Org = 1) =>
    (await api(org).partners.partner.create({ org_id: org, userid: '7', ...fields })).partner.id;
  const product = async (name: string, fields: { sku?: string; uom?: string }, org: Org = 1) =>
    String((await api(org).catalog.product.create({ org_id: org, userid: '7', name, type: 'service', ...fields })).product.id);

  /** Lines with a discount, three tax rates (one zero) and tax-included prices. */
  const lines = (): Line[] => [
    { product_id: products.consulting, quantity: 7.5, price: 95, tax_rate: 20, tax_included: false },
    { product_id: products.widget, quantity: 3, price: 19.99, discount: 10, tax_rate: 20, tax_included: false, description: 'Blue, large' },
    { product_id: products.book, quantity: 2, price: 12.5, tax_rate: 5.5, tax_included: true },
    { product_id: products.coffee, quantity: 1.25, price: 23.9, discount: 5, tax_rate: 5.5, tax_included: true },
    { product_id: products.export, quantity: 3, price: 10, tax_rate: 0, tax_included: false },
  ];
  const invoice = async (fields: InvoiceFields, opts: { validate?: boolean; org?: Org; line_items?: Line[] } = {}) => {
    const org = opts.org ?? 1;
    const created = (
      await api(org).invoicing.invoice.create({
        org_id: org,
        userid: '7',
        invoicedatetime: '2026-11-02T09:30:00',
        invoicedue: '2026-12-02',
        invoiceterms: 'Net 30',
        line_items: opts.line_items ?? lines(),
        ...fields,
      })
    ).invoice;
    if (opts.validate ?? true) await api(org).invoicing.invoice.validate({ org_id: org, userid: '7', id: created.id });
    return created;
  };
  const render = (id: number, format: RenderFormat, org: Org = 1) => api(org).invoicing.invoice.render({ org_id: org, id, format });
  const rendered = async (id: number, format: RenderFormat) => {
    const body = await render(id, format);
    return { body, content: Buffer.from(body.content_base64, 'base64') };
  };
  const quotation = async (quotation_type: 'quotation' | 'proforma' | 'estimate') =>
    (
      await api().sales.quotation.create({
        org_id: 1,
        userid: '7',
        partner: String(greek),
        quotation_type,
        quotation_status: 'sent',
        quotation_date: '2026-11-02T10:00:00',
        valid_until: '2026-12-31',
        line_items: lines(),
      })
    ).quotation;

  beforeAll(async () => {
    prepareRules();
    sys = await startTestSystem();
    await api().partners.organization.set({
      org_id: 1,
      userid: '7',
      legal_name: 'Acme Ltd',
      trading_name: 'Acme',
      address_line1: '1 Main Street',
      city: 'Dublin',
      postal_code: 'D02 X285',
      country: 'IE',
      vat_id: 'IE6388047V',
      company_id: '123456',
      email: 'billing@acme.test',
      phone: '+353 1 234 5678',
      iban: 'IE29 AIBK 9311 5212 3456 78',
      bic: 'AIBKIE2D',
      default_currency: 'EUR',
      logo_png: tinyLogo.toString('base64'),
    });
    products.consulting = await product('Consulting', { sku: 'SRV-1', uom: 'hour' });
    products.widget = await product('Widget', { sku: 'W-42', uom: 'piece' });
    products.book = await product('Book', { uom: 'piece' });
    products.coffee = await product('Coffee beans', { sku: 'CB-1', uom: 'kg' });
    products.export = await product('Export service', {});
    greek = await partner({
      partnername: 'Ελληνική Εταιρεία Α.Ε.',
      partner_type: 'customer',
      address_line1: 'Οδός Αθηνάς 10',
      city: 'Αθήνα',
      postal_code: '10551',
      country: 'GR',
      email: 'info@example.gr',
      tax_number: 'EL094259216',
      currency: 'EUR',
    });
    russian = await partner({
      partnername: 'ООО «Пример»',
      partner_type: 'customer',
      address_line1: 'ул. Ленина, 1',
      city: 'София',
      postal_code: '1000',
      country: 'BG',
      email: 'office@example.bg',
    });
    vendor = await partner({
      partnername: 'Поставщик ЕООД',
      partner_type: 'vendor',
      address: 'бул. Витоша 5\n1000 София',
      country: 'BG',
      email: 'sales@vendor.bg',
      tax_number: 'BG175074752',
    });
    nowhere = await partner({ partnername: 'Nowhere Ltd', partner_type: 'customer' });
  }, 300_000);
  afterAll(async () => {
    await sys?.stop();
  });

  it('renders a validated customer invoice as a PDF a person reads: number, both parties in their scripts, totals, and page 1 as an artifact', async () => {
    const inv = await invoice({ invoicetype: 'invoiceout', partner: String(greek), comments: 'Thank you for your business.' });
    const { body, content } = await rendered(inv.id, 'pdf');
    expect(body).toMatchObject({
      id: inv.id,
      number: inv.invoicenumber,
      format: 'pdf',
      filename: `${inv.invoicenumber}.pdf`,
      content_type: 'application/pdf',
    });
    expect(content.subarray(0, 5).toString()).toBe('%PDF-');
    savePage1Png(content, 'documents', 'e2e-invoice');
    const text = pdfText(content);
    for (const expected of [
      inv.invoicenumber,
      'Acme Ltd',
      'Ελληνική Εταιρεία Α.Ε.',
      'Οδός Αθηνάς 10',
      'Consulting',
      'SKU W-42 · Blue, large',
      'IBAN: IE29AIBK93115212345678',
      'Net 30',
      'Page 1 of 1',
    ]) {
      expect(text).toContain(expected);
    }
    expect(inv.invoicetotal).toBe(1003.14);
    expect(text).toMatch(/Total €1,003\.14/);
    expect(text).toMatch(/20 % €766\.47 €153\.29/);
    // The same invoice renders to the same bytes.
    expect((await rendered(inv.id, 'pdf')).content.equals(content)).toBe(true);
  });

  it('makes every invoice type a UBL and a CII valid against their schemas and the EN 16931 rules, credit notes referring to the invoice they credit', async () => {
    const out = await invoice({ invoicetype: 'invoiceout', partner: String(greek) });
    const credit = await invoice({
      invoicetype: 'creditout',
      partner: String(greek),
      sourcetype: 'invoice',
      sourceid: String(out.id),
      sourcenumber: out.invoicenumber,
    });
    const bill = await invoice({ invoicetype: 'invoicein', partner: String(vendor), invoicenumber: 'V-2026-118' });
    const vendorCredit = await invoice({
      invoicetype: 'creditin',
      partner: String(vendor),
      sourcetype: 'invoice',
      sourceid: String(bill.id),
    });
    const cases = [
      { doc: out, code: '380', seller: 'Acme Ltd', buyer: 'Ελληνική Εταιρεία Α.Ε.' },
      { doc: credit, code: '381', seller: 'Acme Ltd', buyer: 'Ελληνική Εταιρεία Α.Ε.', credits: out.invoicenumber },
      { doc: bill, code: '380', seller: 'Поставщик ЕООД', buyer: 'Acme Ltd' },
      { doc: vendorCredit, code: '381', seller: 'Поставщик ЕООД', buyer: 'Acme Ltd', credits: bill.invoicenumber },
    ];
    for (const c of cases) {
      const ubl = await rendered(c.doc.id, 'ubl');
      expect(ubl.body).toMatchObject({ filename: `${c.doc.invoicenumber}.ubl.xml`, content_type: 'application/xml' });
      const ublXml = ubl.content.toString('utf8');
      expect(await einvoiceFailures('ubl', ublXml)).toBe('');
      expect(ublXml).toContain(
        c.code === '381' ? '<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>' : '<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>',
      );
      expect(ublXml).toMatch(
        new RegExp(
          `<cac:AccountingSupplierParty>[\\s\\S]*<cbc:RegistrationName>${c.seller}</cbc:RegistrationName>[\\s\\S]*</cac:AccountingSupplierParty>`,
        ),
      );
      expect(ublXml).toMatch(
        new RegExp(
          `<cac:AccountingCustomerParty>[\\s\\S]*<cbc:RegistrationName>${c.buyer}</cbc:RegistrationName>[\\s\\S]*</cac:AccountingCustomerParty>`,
        ),
      );
      expect(ublXml).toContain('<cbc:TaxInclusiveAmount currencyID="EUR">1003.14</cbc:TaxInclusiveAmount>');
      const cii = (await rendered(c.doc.id, 'cii')).content.toString('utf8');
      expect(await einvoiceFailures('cii', cii)).toBe('');
      expect(cii).toContain(`<ram:TypeCode>${c.code}</ram:TypeCode>`);
      if (c.credits) {
        expect(ublXml).toMatch(
          new RegExp(`<cac:InvoiceDocumentReference>\\s*<cbc:ID>${c.credits}</cbc:ID>\\s*<cbc:IssueDate>2026-11-02</cbc:IssueDate>`),
        );
        expect(cii).toMatch(new RegExp(`<ram:InvoiceReferencedDocument>\\s*<ram:IssuerAssignedID>${c.credits}</ram:IssuerAssignedID>`));
      }
    }
  }, 120_000);

  it('makes Factur-X of an invoice and its credit note: the PDF as PDF/A-3 carrying the CII as factur-x.xml, valid against the Factur-X schema and the rules, dated by the document whenever it is rendered', async () => {
    const inv = await invoice({ invoicetype: 'invoiceout', partner: String(russian) });
    const credit = await invoice({ invoicetype: 'creditout', partner: String(russian), sourcetype: 'invoice', sourceid: String(inv.id) });
    for (const doc of [inv, credit]) {
      const { body, content } = await rendered(doc.id, 'facturx');
      expect(body).toMatchObject({ filename: `${doc.invoicenumber}.facturx.pdf`, content_type: 'application/pdf' });
      expect(pdfText(content)).toContain('ООО «Пример»');
      const attachments = pdfAttachments(content);
      expect(Object.keys(attachments)).toEqual(['factur-x.xml']);
      const xml = attachments['factur-x.xml']!.toString('utf8');
      expect(xml).toContain(`<ram:ID>${doc.invoicenumber}</ram:ID>`);
      expect(await einvoiceFailures('cii', xml, { facturx: true })).toBe('');
      if (doc === credit)
        expect(xml).toMatch(
          new RegExp(`<ram:InvoiceReferencedDocument>\\s*<ram:IssuerAssignedID>${inv.invoicenumber}</ram:IssuerAssignedID>`),
        );
      // The file's dates are the document's (2 November), in the info dictionary and the XMP alike, not the time it was rendered.
      const info = pdfInfo(content);
      expect(info).toMatchObject({ CreationDate: '2026-11-02T00:00:00Z', ModDate: '2026-11-02T00:00:00Z', 'PDF version': '1.7' });
      const xmp = pdfXmp(content);
      expect(xmp).toContain('<xmp:CreateDate>2026-11-02T00:00:00Z</xmp:CreateDate>');
      expect(xmp).toContain(`<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${info.Title}</rdf:li></rdf:Alt></dc:title>`);
      expect((await rendered(doc.id, 'facturx')).content.equals(content)).toBe(true);
    }
  });

  it('renders a draft as PDF marked DRAFT, and refuses it as an e-invoice', async () => {
    const draft = await invoice({ invoicetype: 'invoiceout', partner: String(greek) }, { validate: false });
    const { content } = await rendered(draft.id, 'pdf');
    savePage1Png(content, 'documents', 'e2e-draft');
    expect(pdfText(content)).toMatch(/DRAFT Invoice/);
    for (const format of ['ubl', 'cii', 'facturx'] as const) {
      expect(await refusal(render(draft.id, format))).toMatchObject({
        status: 400,
        code: 'invalid_state',
        message: expect.stringMatching(/draft is not an invoice yet: validate it first/),
      });
    }
  });

  it('renders a credit note as money credited to the customer: no request to pay, no account of the organization', async () => {
    const out = await invoice({ invoicetype: 'invoiceout', partner: String(greek) });
    const credit = await invoice({ invoicetype: 'creditout', partner: String(greek), sourcetype: 'invoice', sourceid: String(out.id) });
    const text = pdfText((await rendered(credit.id, 'pdf')).content);
    // The preceding invoice (BT-25, BT-26), as UBL and CII carry it.
    expect(text).toContain(`Credits invoice ${out.invoicenumber} of 2 November 2026`);
    expect(text).toMatch(/Amount credited €1,003\.14/);
    for (const absent of ['Please pay', 'IBAN', 'IE29AIBK93115212345678']) expect(text).not.toContain(absent);
    const ubl = (await rendered(credit.id, 'ubl')).content.toString('utf8');
    expect(ubl).not.toContain('IE29AIBK93115212345678');
    expect(await einvoiceFailures('ubl', ubl)).toBe('');
    // The invoice itself still says where to pay.
    expect(pdfText((await rendered(out.id, 'pdf')).content)).toContain('IBAN: IE29AIBK93115212345678');
  });

  it('an issued invoice whose partner is then deleted still renders its e-invoice, the same bytes, from the parties it froze', async () => {
    const gone = await partner({ partnername: 'Gone Ltd', partner_type: 'customer', country: 'FR', email: 'gone@example.fr' });
    const inv = await invoice({ invoicetype: 'invoiceout', partner: String(gone) });
    await api().invoicing.invoice.registerPayment({
      org_id: 1,
      userid: '7',
      id: inv.id,
      amount: 1003.14,
      payment_date: '2026-11-03',
      journal: 'Bank',
    });
    const before = await rendered(inv.id, 'ubl');
    // The partners service learns of the payment from an event: the delete goes through once the balance is settled there.
    await eventually(async () => {
      await api().partners.partner.delete({ org_id: 1, userid: '7', partner_id: gone });
    });
    const after = await rendered(inv.id, 'ubl');
    expect(after.content.equals(before.content)).toBe(true);
    expect(after.content.toString('utf8')).toContain('<cbc:RegistrationName>Gone Ltd</cbc:RegistrationName>');
    expect(pdfText((await rendered(inv.id, 'pdf')).content)).toContain('Gone Ltd');
  });

  it('names exactly the seller and buyer fields an e-invoice lacks', async () => {
    const inv = await invoice({ invoicetype: 'invoiceout', partner: String(nowhere) });
    const res = await refusal(render(inv.id, 'ubl'));
    expect(res).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(res.errors.map((e) => e.field)).toEqual(['partner.country', 'partner.email']);
    expect(res.message).toContain('partner.country, partner.email');
    // Issued without them, the invoice keeps the parties it was validated with: the refusal says what to do.
    expect(res.message).toMatch(/not set when it was validated.*credit it and issue a new one/);
    // The PDF needs none of it.
    expect((await render(inv.id, 'pdf')).format).toBe('pdf');

    // Organization 2 has no profile at all: what its seller side lacks is listed, and its partner has no currency either.
    const [service] = [await product('Work', {}, 2)];
    const theirs = await partner({ partnername: 'Client of two', partner_type: 'customer', country: 'FR', email: 'c@two.test' }, 2);
    const created = await invoice(
      { invoicetype: 'invoiceout', partner: String(theirs) },
      { org: 2, line_items: [{ product_id: service, quantity: 1, price: 10, tax_rate: 20, tax_included: false }] },
    );
    const refused = await refusal(render(created.id, 'cii', 2));
    expect(refused.status).toBe(400);
    expect(refused.errors.map((e) => e.field)).toEqual([
      'organization.default_currency',
      'organization.legal_name',
      'organization.country',
      'organization.vat_id',
      'organization.email',
    ]);
  });

  it("refuses an unknown format naming the choices, and another organization's invoice as not found", async () => {
    const inv = await invoice({ invoicetype: 'invoiceout', partner: String(greek) });
    // raw: a format outside the contract's choices, which the client's types refuse to build
    const res = await sys.post('/invoicing/getinvoice', { org_id: '1', id: inv.id, format: 'docx' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'format', message: 'format must be one of "pdf", "ubl", "cii", "facturx", "peppol"' }],
    });
    expect(await refusal(render(inv.id, 'pdf', 2))).toMatchObject({ status: 400, code: 'not_found' });
  });

  it.each([
    ['proforma', 'Proforma invoice'],
    ['estimate', 'Estimate'],
  ] as const)('renders a %s as a PDF titled as one', async (quotation_type, title) => {
    const q = await quotation(quotation_type);
    const res = await api().sales.quotation.render({ org_id: 1, quotation_id: q.id, format: 'pdf' });
    expect(res).toMatchObject({
      id: q.id,
      number: q.quotation_number,
      filename: `${q.quotation_number}.pdf`,
      content_type: 'application/pdf',
    });
    const text = pdfText(Buffer.from(res.content_base64, 'base64'));
    expect(text).toContain(title);
    expect(text).toContain(q.quotation_number);
    expect(text).toMatch(/Total €1,003\.14/);
  });

  it('renders a quotation as PDF on /sales/orderdetail, and nothing else', async () => {
    const q = await quotation('quotation');
    const res = await api().sales.quotation.render({ org_id: 1, quotation_id: q.id, format: 'pdf' });
    expect(res).toMatchObject({
      id: q.id,
      number: q.quotation_number,
      format: 'pdf',
      filename: `${q.quotation_number}.pdf`,
      content_type: 'application/pdf',
    });
    const content = Buffer.from(res.content_base64, 'base64');
    savePage1Png(content, 'documents', 'e2e-quotation');
    const text = pdfText(content);
    expect(text).toContain('Quotation');
    expect(text).toContain(q.quotation_number);
    expect(text).toContain('Ελληνική Εταιρεία Α.Ε.');
    expect(text).toMatch(/Valid until 31 December 2026/);
    expect(text).toMatch(/Total €1,003\.14/);
    expect(text).not.toContain('DRAFT');
    // Without a format the quotation is read back as before.
    expect((await api().sales.quotation.get({ org_id: 1, quotation_id: q.id })).quotation.id).toBe(q.id);
    // raw: a format a quotation does not have, which the client's types refuse to build
    const ubl = await sys.post('/sales/orderdetail', { org_id: '1', quotation_id: q.id, format: 'ubl' });
    expect(ubl.statusCode).toBe(400);
    expect(ubl.body).toMatchObject({ code: 'validation_failed', errors: [{ field: 'format', message: 'format must be one of "pdf"' }] });
  });
});
