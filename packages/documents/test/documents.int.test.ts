import { deflateSync } from 'node:zlib';
import {
  EInvoiceRefused,
  refusalBody,
  renderCii,
  renderDocument,
  renderFacturX,
  renderPdf,
  renderUbl,
  type DocumentKind,
  type RenderableDocument,
} from '../src';
import { einvoiceFailures, prepareRules } from '../../../tests/support/einvoice';
import { pdfAttachments, pdfInfo, pdfPages, pdfText, pdfWords, pdfXmp, savePage1Png } from '../../../tests/support/pdf';
import { corruptRgbaPng, makePng, oversizedPng, pngChunk } from '../../../tests/support/png';
import { atClock, cyrillicBuyer, greekBuyer, line, sampleDocument, seller } from './fixtures';

const eur = (amount: string) => new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'EUR' }).format(Number(amount));

/** Each invoice type of the system as the services hand it over: vendor documents have the partner as seller. */
const byType: Record<string, RenderableDocument> = {
  invoiceout: sampleDocument('invoice', { number: 'INV-000042' }),
  creditout: sampleDocument('credit_note', {
    number: 'CRN-000007',
    buyer: cyrillicBuyer,
    credited_invoice: { number: 'INV-000042', issue_date: '2026-11-02' },
    amount_paid: '100.00',
  }),
  invoicein: sampleDocument('vendor_bill', { number: 'BILL-000003', seller: { ...greekBuyer }, buyer: seller, payment_account: null }),
  creditin: sampleDocument('vendor_credit_note', {
    number: 'RFD-000001',
    seller: { ...cyrillicBuyer, vat_id: 'BG175074752' },
    buyer: seller,
    payment_account: null,
    credited_invoice: { number: 'BILL-000003' },
  }),
};

beforeAll(() => prepareRules(), 300_000);

describe('PDF', () => {
  test('shows the number, both parties in their own scripts, the lines, the tax summary, the totals and how to pay', async () => {
    const doc = byType.invoiceout!;
    const pdf = await renderPdf(doc);
    savePage1Png(pdf, 'documents', 'invoice');
    const text = pdfText(pdf);
    expect(text).toContain('Invoice');
    expect(text).toContain('INV-000042');
    expect(text).toContain('Acme Ltd');
    expect(text).toContain('Ελληνική Εταιρεία Α.Ε.');
    expect(text).toContain('Οδός Αθηνάς 10');
    for (const l of doc.lines) expect(text).toContain(l.name);
    expect(text).toMatch(/Subtotal €847\.07/);
    expect(text).toMatch(/Tax €156\.07/);
    expect(text).toMatch(/Total €1,003\.14/);
    expect(text).toContain(eur(doc.totals.total));
    // The tax summary per rate: 20 % on 766.47 is 153.29.
    expect(text).toMatch(/20 % €766\.47 €153\.29/);
    expect(text).toMatch(/5\.5 % €50\.60 €2\.78/);
    expect(text).toContain('€10.0001');
    expect(text).toContain('2 December 2026');
    expect(text).toContain('IBAN: IE29AIBK93115212345678');
    expect(text).toContain('Net 30');
    expect(text).toContain('Page 1 of 1');
    expect(text).not.toContain('DRAFT');
  });

  test('a credit note names the invoice it credits and a Cyrillic buyer; what was paid leaves the amount due', async () => {
    const text = pdfText(await renderPdf(byType.creditout!));
    expect(text).toContain('Credit note');
    expect(text).toContain('CRN-000007');
    expect(text).toContain('ООО «Пример»');
    expect(text).toContain('ул. Ленина, 1');
    expect(text).toMatch(/Credits invoice INV-000042 of 2 November 2026/);
    expect(text).toMatch(/Refunded -€100\.00/);
    expect(text).toMatch(/Still to refund €903\.14/);
  });

  test('a credit note asks nobody to pay: the amount is credited, and no account of the seller is shown', async () => {
    // The fixture still carries the seller's account: a credit note must not show it whatever it is given.
    expect(byType.creditout!.payment_account?.iban).toBe('IE29AIBK93115212345678');
    const text = pdfText(await renderPdf(byType.creditout!));
    expect(text).toMatch(/Amount credited €1,003\.14/);
    expect(text).toMatch(/Amount credited: €1,003\.14\. Nothing to pay: it is refunded or set against open invoices by 2 December 2026\./);
    for (const absent of ['Please pay', 'IBAN', 'IE29AIBK93115212345678', 'Amount due', 'Account holder'])
      expect(text).not.toContain(absent);
  });

  test('the same document renders to the same bytes; another date to other bytes', async () => {
    const doc = byType.invoiceout!;
    const [a, b] = await Promise.all([renderPdf(doc), renderPdf(doc)]);
    expect(a.equals(b)).toBe(true);
    const c = await renderPdf({ ...doc, issue_date: '2026-11-03' });
    expect(c.equals(a)).toBe(false);
  });

  test.each([
    ['an RGBA PNG whose image data is not zlib', corruptRgbaPng, /does not decompress/],
    ['a PNG whose header claims 30000 x 30000 pixels', oversizedPng, /at most 4096 x 4096 pixels/],
  ])('a logo PDFKit cannot draw (%s) is left out with a warning, and the document still renders', async (_what, logo, reason) => {
    const warnings: string[] = [];
    const pdf = await renderPdf({ ...byType.invoiceout!, logo_png: logo }, { warn: (m) => warnings.push(m) });
    expect(pdfText(pdf)).toMatch(/Total €1,003\.14/);
    expect(warnings).toEqual([expect.stringMatching(reason)]);
    expect(warnings[0]).toMatch(/logo is left out of INV-000042/);
  });

  test('a drawable logo of any kind PDFKit decodes itself (RGBA, interlaced, indexed with transparency) is drawn without a warning', async () => {
    const palette = [pngChunk('PLTE', Buffer.from([0, 0, 0, 255, 0, 0])), pngChunk('tRNS', Buffer.from([0]))];
    // 5 x 3 RGBA in Adam7 passes 1 to 7: 1, 1, 0, 1, 3 pixels in a row; 2 rows of 2; 1 row of 5; a filter byte each row.
    const interlacedBytes = 5 + 5 + 5 + 13 + 2 * 9 + 21;
    const logos = [
      makePng({ width: 5, height: 3, colourType: 6 }),
      makePng({ width: 5, height: 3, colourType: 6, interlaced: true, idat: deflateSync(Buffer.alloc(interlacedBytes)) }),
      makePng({ width: 5, height: 3, colourType: 3, before: palette }),
    ];
    for (const logo of logos) {
      const warnings: string[] = [];
      const pdf = await renderPdf({ ...byType.invoiceout!, logo_png: logo }, { warn: (m) => warnings.push(m) });
      expect(warnings).toEqual([]);
      expect(pdf.includes('/Subtype /Image')).toBe(true);
    }
  });

  test('a draft is marked DRAFT', async () => {
    const pdf = await renderPdf({ ...byType.invoiceout!, draft: true });
    savePage1Png(pdf, 'documents', 'invoice-draft');
    expect(pdfText(pdf)).toMatch(/DRAFT/);
  });

  test('a cancelled invoice is marked CANCELLED and is no e-invoice', async () => {
    const doc = { ...byType.invoiceout!, cancelled: true };
    expect(pdfText(await renderPdf(doc))).toMatch(/CANCELLED Invoice/);
    await expect(renderUbl(doc)).rejects.toThrow(/cancelled invoice is no e-invoice/);
  });

  test('lines that overflow a page continue on the next with the table header, and every page is numbered', async () => {
    const lines = Array.from({ length: 70 }, (_, i) =>
      line({
        name: `Article ${i + 1}`,
        sku: `A-${i + 1}`,
        unit: 'piece',
        quantity: '1',
        price: '10',
        discount: '0',
        tax_rate: '20',
        tax_included: false,
      }),
    );
    const pdf = await renderPdf(sampleDocument('invoice', { lines }));
    savePage1Png(pdf, 'documents', 'overflow');
    const pages = pdfPages(pdf);
    expect(pages).toBeGreaterThan(1);
    const text = pdfText(pdf);
    for (let p = 1; p <= pages; p++) expect(text).toContain(`Page ${p} of ${pages}`);
    for (const l of lines) expect(text).toMatch(new RegExp(`${l.name}\\b`));
    // Every page holding lines starts them under the table header (pdftotext separates pages by form feeds).
    const pagesWithLines = text.split('\f').filter((page) => page.includes('Article'));
    expect(pagesWithLines.length).toBeGreaterThan(1);
    for (const page of pagesWithLines) expect(page).toMatch(/Item Qty Unit Price Disc\. Tax Net amount[\s\S]*Article/);
    for (const page of pagesWithLines.slice(1)) expect(page).toContain('Invoice INV-000042 (continued)');
    expect(text).toContain('€840.00');
  });

  test('a line with a 2000-character description taller than a page continues on the next pages under the table header, all above the footer', async () => {
    const description = Array.from({ length: 100 }, (_, i) => `Step ${String(i + 1).padStart(3, '0')} of the job`).join('\n');
    expect(description.length).toBe(1999);
    const lines = [
      line({ name: 'Warm-up', unit: 'hour', quantity: '1', price: '10', discount: '0', tax_rate: '20', tax_included: false }),
      line({
        name: 'Long job',
        unit: 'hours of very careful work',
        quantity: '1',
        price: '10',
        discount: '0',
        tax_rate: '20',
        tax_included: false,
        description,
      }),
      line({ name: 'Wrap-up', unit: 'hour', quantity: '1', price: '10', discount: '0', tax_rate: '20', tax_included: false }),
    ];
    const pdf = await renderPdf(sampleDocument('invoice', { lines, notes: 'Notes after it all. '.repeat(300) }));
    const pages = pdfPages(pdf);
    expect(pages).toBeGreaterThan(2);
    const words = pdfWords(pdf);
    // The footer rule is 60 points above the page's bottom edge, its text below it; the body stops 30 points above the rule.
    const footerRule = 841.89 - 60;
    const overFooter = words.filter((w) => w.yMax > footerRule - 30 && w.yMin < footerRule);
    expect(overFooter).toEqual([]);
    const footer = words.filter((w) => w.yMin > footerRule);
    for (let p = 1; p <= pages; p++) {
      const text = footer
        .filter((w) => w.page === p)
        .map((w) => w.text)
        .join(' ');
      expect(text).toBe(`Acme Ltd · VAT IE6388047V · 123456 · billing@acme.test · +353 1 234 5678 Page ${p} of ${pages}`);
    }
    // Every step is there, once and in order, and the row after it follows.
    const body = words
      .filter((w) => w.yMin < footerRule)
      .map((w) => w.text)
      .join(' ');
    const steps = [...body.matchAll(/Step (\d{3}) of the job/g)].map((m) => Number(m[1]));
    expect(steps).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(body.indexOf('Wrap-up')).toBeGreaterThan(body.indexOf('Step 100'));
    const text = pdfText(pdf);
    const continued = text
      .split('\f')
      .filter((page) => page.includes('Step'))
      .slice(1);
    expect(continued.length).toBeGreaterThan(0);
    for (const page of continued)
      expect(page).toMatch(/^\s*Invoice INV-000042 \(continued\)\s+Item Qty Unit Price Disc\. Tax Net amount\s+Step/);
  });

  test('a quotation shows its validity, in its own currency, and no payment request', async () => {
    const pdf = await renderPdf(
      sampleDocument('quotation', {
        number: 'QUO-000001',
        currency: 'GBP',
        valid_until: '2026-12-31',
        due_date: null,
        payment_account: null,
        payment_terms: null,
      }),
    );
    savePage1Png(pdf, 'documents', 'quotation');
    const text = pdfText(pdf);
    expect(text).toContain('Quotation');
    expect(text).toContain('QUO-000001');
    expect(text).toMatch(/Valid until 31 December 2026/);
    expect(text).toContain('£1,003.14');
    expect(text).not.toContain('€');
    expect(text).not.toContain('Please pay');
  });
});

describe('e-invoices are valid against their schema and pass the EN 16931 rules', () => {
  test.each(Object.entries(byType))('%s as UBL', async (_type, doc) => {
    const xml = await renderUbl(doc);
    expect(await einvoiceFailures('ubl', xml)).toBe('');
    const credit = doc.kind === 'credit_note' || doc.kind === 'vendor_credit_note';
    expect(xml).toMatch(
      credit
        ? /<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"/
        : /<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/,
    );
    expect(xml).toContain(`<cbc:${credit ? 'CreditNoteTypeCode' : 'InvoiceTypeCode'}>${credit ? '381' : '380'}</cbc:`);
    expect(xml).toContain('<cbc:CustomizationID>urn:cen.eu:en16931:2017</cbc:CustomizationID>');
    expect(xml).toContain(`<cbc:ID>${doc.number}</cbc:ID>`);
    expect(xml).toContain(`<cbc:TaxInclusiveAmount currencyID="EUR">${doc.totals.total}</cbc:TaxInclusiveAmount>`);
    if (doc.credited_invoice)
      expect(xml).toMatch(new RegExp(`<cac:InvoiceDocumentReference>\\s*<cbc:ID>${doc.credited_invoice.number}</cbc:ID>`));
  });

  test.each(Object.entries(byType))('%s as CII', async (_type, doc) => {
    const xml = await renderCii(doc);
    expect(await einvoiceFailures('cii', xml)).toBe('');
    const credit = doc.kind === 'credit_note' || doc.kind === 'vendor_credit_note';
    expect(xml).toContain(`<ram:TypeCode>${credit ? '381' : '380'}</ram:TypeCode>`);
    expect(xml).toMatch(/<ram:GuidelineSpecifiedDocumentContextParameter>\s*<ram:ID>urn:cen\.eu:en16931:2017<\/ram:ID>/);
    expect(xml).toContain(`<ram:GrandTotalAmount>${doc.totals.total}</ram:GrandTotalAmount>`);
    if (doc.credited_invoice)
      expect(xml).toMatch(
        new RegExp(`<ram:InvoiceReferencedDocument>\\s*<ram:IssuerAssignedID>${doc.credited_invoice.number}</ram:IssuerAssignedID>`),
      );
  });

  test('mappings: S and Z categories, Rec 20 units, SEPA transfer with the IBAN, discounts as line allowances, tax-included prices as exact net prices', async () => {
    const xml = await renderUbl(byType.invoiceout!);
    expect(xml).toMatch(/<cac:TaxCategory>\s*<cbc:ID>S<\/cbc:ID>\s*<cbc:Percent>20<\/cbc:Percent>/);
    expect(xml).toMatch(/<cac:TaxCategory>\s*<cbc:ID>Z<\/cbc:ID>\s*<cbc:Percent>0<\/cbc:Percent>/);
    expect(xml).toContain('<cbc:InvoicedQuantity unitCode="HUR">7.5</cbc:InvoicedQuantity>');
    expect(xml).toContain('<cbc:InvoicedQuantity unitCode="H87">3</cbc:InvoicedQuantity>');
    expect(xml).toContain('<cbc:InvoicedQuantity unitCode="KGM">1.25</cbc:InvoicedQuantity>');
    expect(xml).toContain('<cbc:InvoicedQuantity unitCode="C62">3</cbc:InvoicedQuantity>');
    expect(xml).toMatch(/<cbc:PaymentMeansCode>58<\/cbc:PaymentMeansCode>[\s\S]*<cbc:ID>IE29AIBK93115212345678<\/cbc:ID>/);
    // Widget: 3 x 19.99 = 59.97, 10 % off = 53.97 net; the allowance is the 6.00 between.
    expect(xml).toMatch(
      /<cbc:AllowanceChargeReasonCode>95<\/cbc:AllowanceChargeReasonCode>\s*<cbc:AllowanceChargeReason>Discount 10%<\/cbc:AllowanceChargeReason>\s*<cbc:Amount currencyID="EUR">6\.00<\/cbc:Amount>/,
    );
    // Book: 2 x 12.50 including 5.5 % = 23.70 net, 11.85 each.
    expect(xml).toMatch(
      /<cbc:LineExtensionAmount currencyID="EUR">23\.70<\/cbc:LineExtensionAmount>[\s\S]*?<cbc:PriceAmount currencyID="EUR">11\.85<\/cbc:PriceAmount>/,
    );
    // Coffee: 1.25 kg at 23.90 including 5.5 %, 5 % off: 28.32 before tax and discount has no exact price per kg in cents,
    // so the price is stated for the 1.25 kg; the 1.42 allowance takes it to the 26.90 net.
    expect(xml).toMatch(
      /<cbc:PriceAmount currencyID="EUR">28\.32<\/cbc:PriceAmount>\s*<cbc:BaseQuantity unitCode="KGM">1\.25<\/cbc:BaseQuantity>/,
    );
    expect(xml).toMatch(/<cbc:Amount currencyID="EUR">1\.42<\/cbc:Amount>/);
    // 3 x 10.0001 rounds to 30.00, which is exactly 10 each.
    expect(xml).toMatch(
      /<cbc:LineExtensionAmount currencyID="EUR">30\.00<\/cbc:LineExtensionAmount>[\s\S]*?<cbc:PriceAmount currencyID="EUR">10<\/cbc:PriceAmount>/,
    );
    const bill = await renderUbl(byType.invoicein!);
    expect(bill).toContain('<cbc:PaymentMeansCode>1</cbc:PaymentMeansCode>');
  });

  test('a credit note names no payment means and no account of the seller, and says the amount is credited, not due', async () => {
    const ubl = await renderUbl(byType.creditout!);
    const cii = await renderCii(byType.creditout!);
    for (const xml of [ubl, cii]) {
      expect(xml).not.toContain('IE29AIBK93115212345678');
      expect(xml).not.toMatch(/PaymentMeans/);
      expect(xml).toContain('Amount credited to the buyer, refunded or set against open invoices by 2026-12-02; nothing to pay');
      expect(xml).not.toContain('Due 2026-12-02');
    }
    expect(cii).not.toContain('DueDateDateTime');
  });

  test('tax rounded line by line: 240 lines of 1.00 including 20 % (0.96 from the category tax) pass BR-CO-17; 300 (1.20) are refused with why, as PDF they still render', async () => {
    const sticker = (n: number) =>
      Array.from({ length: n }, () =>
        line({ name: 'Sticker', quantity: '1', price: '1.00', discount: '0', tax_rate: '20', tax_included: true }),
      );
    const near = sampleDocument('invoice', { lines: sticker(240) });
    expect(near.totals).toEqual({ subtotal: '199.20', tax_amount: '40.80', total: '240.00' });
    expect(await einvoiceFailures('ubl', await renderUbl(near))).toBe('');
    expect(await einvoiceFailures('cii', await renderCii(near))).toBe('');
    const over = sampleDocument('invoice', { lines: sticker(300) });
    await expect(renderUbl(over)).rejects.toThrow(
      /the 20 % lines carry 51\.00 EUR of tax .* 20 % of their 249\.00 is 49\.80: 1\.20 apart, and EN 16931 \(BR-CO-17\) accepts less than 1\.00/,
    );
    await expect(renderCii(over)).rejects.toBeInstanceOf(EInvoiceRefused);
    expect(pdfText(await renderPdf(over))).toMatch(/Total €300\.00/);
  }, 120_000);

  test.each(Object.entries(byType))(
    '%s as Factur-X: the PDF as PDF/A-3 carrying the CII as factur-x.xml, valid against the Factur-X EN 16931 schema and the rules',
    async (_type, doc) => {
      const fx = await renderFacturX(doc, await renderPdf(doc));
      expect(pdfText(fx)).toContain(doc.number);
      const attachments = pdfAttachments(fx);
      expect(Object.keys(attachments)).toEqual(['factur-x.xml']);
      const xml = attachments['factur-x.xml']!.toString('utf8');
      expect(xml).toContain(`<ram:ID>${doc.number}</ram:ID>`);
      expect(await einvoiceFailures('cii', xml, { facturx: true })).toBe('');
      if (doc.credited_invoice)
        expect(xml).toMatch(
          new RegExp(`<ram:InvoiceReferencedDocument>\\s*<ram:IssuerAssignedID>${doc.credited_invoice.number}</ram:IssuerAssignedID>`),
        );
      const xmp = pdfXmp(fx);
      expect(xmp).toMatch(/<pdfaid:part>3<\/pdfaid:part>/);
      expect(xmp).toMatch(/ConformanceLevel>EN 16931</);
    },
  );

  /** A property of the XMP, as text: the element's own, or its first rdf:li's. */
  const xmpValue = (xmp: string, tag: string) =>
    new RegExp(`<${tag}>\\s*(?:<rdf:(?:Alt|Seq)>\\s*<rdf:li[^>]*>)?([^<]*)<`)
      .exec(xmp)?.[1]
      ?.replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&');

  test('Factur-X says the same in its info dictionary and its XMP: title, author, subject, keywords, creator, producer, dates, PDF version', async () => {
    const doc = byType.creditout!;
    const fx = await renderFacturX(doc, await renderPdf(doc));
    const info = pdfInfo(fx);
    const xmp = pdfXmp(fx);
    expect(info).toMatchObject({
      Title: 'Credit note CRN-000007',
      Author: 'Acme Ltd',
      Subject: 'Credit note CRN-000007 for ООО «Пример»',
      Creator: 'backoffice',
      CreationDate: '2026-11-02T00:00:00Z',
      ModDate: '2026-11-02T00:00:00Z',
      'PDF version': '1.7',
    });
    expect(Buffer.from(fx).subarray(0, 8).toString()).toBe('%PDF-1.7');
    expect({
      Title: xmpValue(xmp, 'dc:title'),
      Author: xmpValue(xmp, 'dc:creator'),
      Subject: xmpValue(xmp, 'dc:description'),
      Keywords: xmpValue(xmp, 'pdf:Keywords'),
      Creator: xmpValue(xmp, 'xmp:CreatorTool'),
      Producer: xmpValue(xmp, 'pdf:Producer'),
      CreationDate: xmpValue(xmp, 'xmp:CreateDate'),
      ModDate: xmpValue(xmp, 'xmp:ModifyDate'),
      'PDF version': xmpValue(xmp, 'pdf:PDFVersion'),
    }).toEqual({
      Title: info.Title,
      Author: info.Author,
      Subject: info.Subject,
      Keywords: info.Keywords,
      Creator: info.Creator,
      Producer: info.Producer,
      CreationDate: info.CreationDate,
      ModDate: info.ModDate,
      'PDF version': info['PDF version'],
    });
    expect(xmpValue(xmp, 'xmp:MetadataDate')).toBe(info.CreationDate);
  });

  test('Factur-X of the same document is the same bytes at another time of day and another year: every date is the document date', async () => {
    const doc = byType.invoiceout!;
    const pdf = await renderPdf(doc);
    const at = (iso: string) =>
      atClock(iso, async () => {
        expect(new Date().getUTCFullYear()).toBe(new Date(iso).getUTCFullYear());
        return Buffer.from(await renderFacturX(doc, pdf));
      });
    const morning = await at('2026-11-02T08:00:00Z');
    const later = await at('2031-05-05T23:59:59Z');
    expect(later.equals(morning)).toBe(true);
    expect(pdfInfo(later).CreationDate).toBe('2026-11-02T00:00:00Z');
  });
});

describe('refusals', () => {
  const refusal = async (doc: RenderableDocument) => {
    try {
      await renderUbl(doc);
    } catch (e) {
      if (e instanceof EInvoiceRefused) return e;
      throw e;
    }
    throw new Error('rendered');
  };

  test('a draft is not an e-invoice', async () => {
    expect((await refusal({ ...byType.invoiceout!, draft: true })).message).toMatch(/draft/);
  });

  test.each<DocumentKind>(['quotation', 'proforma', 'estimate'])('a %s is not an e-invoice', async (kind) => {
    expect((await refusal(sampleDocument(kind))).message).toMatch(/only PDF/);
  });

  test('a deleted buyer or seller is the reason, not the fields it lacks', async () => {
    const e = await refusal(sampleDocument('invoice', { buyer: { name: 'Gone Ltd', deleted: true } }));
    expect([e.deleted, e.missing]).toEqual(['buyer', []]);
    expect((await refusal({ ...byType.invoicein!, seller: { name: 'Old vendor', deleted: true } })).deleted).toBe('seller');
  });

  test('a CJK partner name: Factur-X (PDF/A, no .notdef allowed) is refused naming the field; the PDF renders with a warning, UBL as usual', async () => {
    const doc = sampleDocument('invoice', { buyer: { ...greekBuyer, name: '株式会社テスト', address_lines: ['千代田区 1-1'] } });
    const refused = await renderDocument(doc, 'facturx').then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(EInvoiceRefused);
    expect((refused as EInvoiceRefused).undrawable.map((u) => u.field)).toEqual(['buyer.name', 'buyer.address_lines']);
    expect(refusalBody(refused as EInvoiceRefused, 'invoice').errors?.map((e) => e.field)).toEqual([
      'partner.partnername',
      'partner.address_line1',
    ]);
    const warnings: string[] = [];
    const pdf = await renderDocument(doc, 'pdf', { warn: (m) => warnings.push(m) });
    expect(pdfText(pdf.content)).toContain('INV-000042');
    expect(warnings).toEqual([
      expect.stringMatching(/^buyer\.name of INV-000042 holds characters the embedded fonts cannot draw \(株 式 会 社 テ ス ト\)/),
      expect.stringMatching(/^buyer\.address_lines/),
    ]);
    expect(await einvoiceFailures('ubl', (await renderDocument(doc, 'ubl')).content.toString('utf8'))).toBe('');
  });

  test('missing seller and buyer data is listed field by field', async () => {
    const doc = sampleDocument('invoice', { seller: { ...seller, vat_id: null, email: ' ' }, buyer: { name: 'Nobody' } });
    const e = await refusal(doc);
    expect(e.missing).toEqual(['seller.vat_id', 'seller.email', 'buyer.country', 'buyer.email']);
    await expect(renderCii(doc)).rejects.toThrow(/seller\.vat_id, seller\.email, buyer\.country, buyer\.email/);
  });
});
