import fc from 'fast-check';
import { vatexCode } from '@bo/kernel';
import { accountingCurrency, missingForEInvoice, renderCii, renderFacturX, renderPdf, renderUbl, type RenderableDocument } from '../src';
import { einvoiceFailures, fatalFailures, prepareRules, schemaFailuresOfMany } from '../../../tests/support/einvoice';
import { pdfAttachments, pdfText, savePage1Png } from '../../../tests/support/pdf';
import { greekBuyer, seller, taxedDocument, type TaxedLineSpec, type TaxedSpec } from './fixtures';
import { CATEGORIES, decided, documentArb } from './taxed-arbitraries';

/**
 * Documents with VAT categories, exemptions, allowances and charges, rounding amounts and foreign
 * currencies, as the kernel decides them, rendered as UBL, CII, Factur-X and PDF. The e-invoices must
 * pass their schema and the official EN 16931 rules without one fatal assert.
 * FC_SEED=<seed> replays the random documents; a failure prints the seed and the smallest document.
 */
const SEED = Number(process.env.FC_SEED ?? Date.now() % 2_147_483_647);

beforeAll(() => prepareRules(), 300_000);

const money = (currency: string, amount: string) => new Intl.NumberFormat('en-GB', { style: 'currency', currency }).format(Number(amount));
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function expectValid(doc: RenderableDocument): Promise<{ ubl: string; cii: string }> {
  const [ubl, cii] = [await renderUbl(doc), await renderCii(doc)];
  expect(await einvoiceFailures('ubl', ubl)).toBe('');
  expect(await einvoiceFailures('cii', cii)).toBe('');
  return { ubl, cii };
}

const item = (spec: Partial<TaxedLineSpec> & Pick<TaxedLineSpec, 'name' | 'price' | 'tax_rate'>): TaxedLineSpec => ({
  quantity: '1',
  discount: '0',
  tax_included: false,
  unit: 'piece',
  ...spec,
});

/** Standard-rated lines with a 10 % allowance on them and a freight charge, a reduced rate, an exempt line and a zero-rated one. */
const mixed: TaxedSpec = {
  currency: 'EUR',
  lines: [
    item({ name: 'Consulting', unit: 'hour', quantity: '2', price: '50', tax_rate: '20' }),
    item({ name: 'Widget', quantity: '5', price: '10', tax_rate: '20' }),
    item({ name: 'Book', quantity: '2', price: '7.45', tax_rate: '5.5' }),
    item({
      name: 'Medical check',
      price: '80',
      tax_rate: '0',
      tax_category: 'E',
      tax_exemption_reason: 'Medical care',
      tax_exemption_code: 'VATEX-EU-132-1C',
    }),
    item({ name: 'Export crate', price: '15', tax_rate: '0' }),
  ],
  allowances_charges: [
    { charge: false, percent: '10', reason: 'Loyalty discount', reason_code: '95', tax_category: 'S', tax_rate: '20' },
    { charge: true, amount: '12.50', reason: 'Freight', reason_code: 'FC', tax_category: 'S', tax_rate: '20' },
  ],
};

describe('a taxed document carries its categories, exemptions, allowances and charges', () => {
  test('UBL and CII: BG-20/BG-21 with reason, code, percent and base; BG-23 per category and rate with BT-120/121; each line its category', async () => {
    const doc = taxedDocument('invoice', mixed, { number: 'INV-TAX-1' });
    // The 20 % base: 100 + 50 - 15 + 12.50 = 147.50, VAT 29.50; 5.5 % on 14.90 is 0.82; E 80 and Z 15 none.
    expect(doc.taxes!.totals.tax_exclusive_amount.toFixed(2)).toBe('257.40');
    const { ubl, cii } = await expectValid(doc);
    expect(ubl).toMatch(
      /<cac:AllowanceCharge>\s*<cbc:ChargeIndicator>false<\/cbc:ChargeIndicator>\s*<cbc:AllowanceChargeReasonCode>95<\/cbc:AllowanceChargeReasonCode>\s*<cbc:AllowanceChargeReason>Loyalty discount<\/cbc:AllowanceChargeReason>\s*<cbc:MultiplierFactorNumeric>10<\/cbc:MultiplierFactorNumeric>\s*<cbc:Amount currencyID="EUR">15\.00<\/cbc:Amount>\s*<cbc:BaseAmount currencyID="EUR">150\.00<\/cbc:BaseAmount>\s*<cac:TaxCategory>\s*<cbc:ID>S<\/cbc:ID>\s*<cbc:Percent>20<\/cbc:Percent>/,
    );
    expect(ubl).toMatch(
      /<cbc:ChargeIndicator>true<\/cbc:ChargeIndicator>\s*<cbc:AllowanceChargeReasonCode>FC<\/cbc:AllowanceChargeReasonCode>/,
    );
    expect(ubl).toMatch(
      /<cbc:TaxableAmount currencyID="EUR">147\.50<\/cbc:TaxableAmount>\s*<cbc:TaxAmount currencyID="EUR">29\.50<\/cbc:TaxAmount>/,
    );
    expect(ubl).toMatch(
      /<cbc:TaxableAmount currencyID="EUR">80\.00<\/cbc:TaxableAmount>\s*<cbc:TaxAmount currencyID="EUR">0\.00<\/cbc:TaxAmount>\s*<cac:TaxCategory>\s*<cbc:ID>E<\/cbc:ID>\s*<cbc:Percent>0<\/cbc:Percent>\s*<cbc:TaxExemptionReasonCode>VATEX-EU-132-1C<\/cbc:TaxExemptionReasonCode>\s*<cbc:TaxExemptionReason>Medical care<\/cbc:TaxExemptionReason>/,
    );
    expect(ubl).toMatch(/<cbc:AllowanceTotalAmount currencyID="EUR">15\.00<\/cbc:AllowanceTotalAmount>/);
    expect(ubl).toMatch(/<cbc:ChargeTotalAmount currencyID="EUR">12\.50<\/cbc:ChargeTotalAmount>/);
    expect(ubl).toMatch(/<cac:ClassifiedTaxCategory>\s*<cbc:ID>E<\/cbc:ID>/);
    expect(cii).toMatch(
      /<ram:SpecifiedTradeAllowanceCharge>[\s\S]*?<ram:CalculationPercent>10<\/ram:CalculationPercent>\s*<ram:BasisAmount>150\.00<\/ram:BasisAmount>\s*<ram:ActualAmount>15\.00<\/ram:ActualAmount>/,
    );
    expect(cii).toMatch(
      /<ram:ExemptionReason>Medical care<\/ram:ExemptionReason>[\s\S]*?<ram:CategoryCode>E<\/ram:CategoryCode>\s*<ram:ExemptionReasonCode>VATEX-EU-132-1C<\/ram:ExemptionReasonCode>/,
    );
  }, 60_000);

  test('the PDF: the allowances and charges under the lines, the breakdown per category and rate with the exemption, the totals in EUR', async () => {
    const doc = taxedDocument('invoice', mixed, { number: 'INV-TAX-1' });
    const pdf = await renderPdf(doc);
    savePage1Png(pdf, 'documents', 'invoice-taxes');
    const text = pdfText(pdf);
    expect(text).toMatch(/Loyalty discount 20 % -€15\.00/);
    expect(text).toMatch(/Allowance · code 95 · 10 % of €150\.00/);
    expect(text).toMatch(/Freight 20 % €12\.50/);
    expect(text).toMatch(/Medical check .*€80\.00/);
    // The narrow Tax column: pdftotext may join its words.
    expect(text).toMatch(/E ?0 ?% €80\.00/);
    expect(text).toMatch(/Amounts in EUR/);
    expect(text).toMatch(/20 % €147\.50 €29\.50/);
    expect(text).toMatch(/5\.5 % €14\.90 €0\.82/);
    expect(text).toMatch(/Exempt 0 % €80\.00 €0\.00/);
    expect(text).toMatch(/Medical care · VATEX-EU-132-1C: Exempt based on article 132,\s+section 1 \(c\)/);
    expect(text).toMatch(/Subtotal €259\.90/);
    expect(text).toMatch(/Allowances -€15\.00/);
    expect(text).toMatch(/Charges €12\.50/);
    expect(text).toMatch(/Net total €257\.40/);
    expect(text).toMatch(/Tax €30\.32/);
    expect(text).toMatch(/Total €287\.72/);
    expect(text).not.toMatch(/Rounding/);
  });

  test('reverse charge: "Reverse charge" and the VATEX text on the PDF, both VAT ids in the e-invoice, no VAT', async () => {
    const doc = taxedDocument(
      'invoice',
      {
        currency: 'EUR',
        lines: [
          item({
            name: 'Installation',
            unit: 'hour',
            quantity: '10',
            price: '85',
            tax_rate: '0',
            tax_category: 'AE',
            tax_exemption_code: 'VATEX-EU-AE',
          }),
        ],
      },
      { number: 'INV-AE-1' },
    );
    const { ubl, cii } = await expectValid(doc);
    expect(ubl).toContain(`<cbc:CompanyID>${seller.vat_id}</cbc:CompanyID>`);
    expect(ubl).toContain(`<cbc:CompanyID>${greekBuyer.vat_id}</cbc:CompanyID>`);
    expect(ubl).toMatch(
      /<cbc:ID>AE<\/cbc:ID>\s*<cbc:Percent>0<\/cbc:Percent>\s*<cbc:TaxExemptionReasonCode>VATEX-EU-AE<\/cbc:TaxExemptionReasonCode>/,
    );
    expect(cii).toContain('<ram:CategoryCode>AE</ram:CategoryCode>');
    const text = pdfText(await renderPdf(doc));
    expect(text).toMatch(/Reverse charge 0 % €850\.00 €0\.00/);
    expect(text).toMatch(/VATEX-EU-AE: Reverse charge/);
    expect(text).toMatch(/AE ?0 ?% €850\.00/);
    expect(text).toMatch(/Total €850\.00/);
    // The buyer's VAT id is what reverse charge needs (BR-AE-03): without it no e-invoice.
    expect(missingForEInvoice({ ...doc, buyer: { ...doc.buyer, vat_id: null } })).toEqual(['buyer.vat_id']);
  }, 60_000);

  test('outside the scope of VAT: no VAT id of either party (BR-O-02..04), none asked for, and no rate', async () => {
    const doc = taxedDocument(
      'invoice',
      {
        currency: 'EUR',
        lines: [
          item({ name: 'Damages', price: '1000', tax_rate: '0', tax_category: 'O', tax_exemption_reason: 'Compensation, not a supply' }),
        ],
      },
      { number: 'INV-O-1' },
    );
    const { ubl, cii } = await expectValid(doc);
    for (const xml of [ubl, cii]) {
      expect(xml).not.toContain(seller.vat_id);
      expect(xml).not.toContain(greekBuyer.vat_id);
    }
    expect(ubl).toMatch(/<cac:ClassifiedTaxCategory>\s*<cbc:ID>O<\/cbc:ID>\s*<cac:TaxScheme>/);
    expect(ubl).toMatch(
      /<cbc:TaxExemptionReasonCode>VATEX-EU-O<\/cbc:TaxExemptionReasonCode>\s*<cbc:TaxExemptionReason>Compensation, not a supply<\/cbc:TaxExemptionReason>/,
    );
    expect(missingForEInvoice({ ...doc, seller: { ...doc.seller, vat_id: null } })).toEqual([]);
    const text = pdfText(await renderPdf(doc));
    expect(text).toMatch(/Outside the scope of\s+€1,000\.00 €0\.00/);
    expect(text).toMatch(/Compensation, not a supply · VATEX-EU-O/);
  }, 60_000);

  test('an intra-community supply states when and where it was delivered (BR-IC-11, BR-IC-12)', async () => {
    const doc = taxedDocument(
      'invoice',
      {
        currency: 'EUR',
        lines: [item({ name: 'Pallet of widgets', price: '2400', tax_rate: '0', tax_category: 'K', tax_exemption_code: 'VATEX-EU-IC' })],
      },
      { number: 'INV-K-1' },
    );
    const { ubl } = await expectValid(doc);
    expect(ubl).toMatch(
      /<cac:Delivery>\s*<cbc:ActualDeliveryDate>2026-11-02<\/cbc:ActualDeliveryDate>\s*<cac:DeliveryLocation>\s*<cac:Address>\s*<cac:Country>\s*<cbc:IdentificationCode>GR<\/cbc:IdentificationCode>/,
    );
    const given = await renderUbl({ ...doc, delivery: { date: '2026-10-30', country: 'CY' } });
    expect(given).toContain('<cbc:ActualDeliveryDate>2026-10-30</cbc:ActualDeliveryDate>');
    expect(given).toContain('<cbc:IdentificationCode>CY</cbc:IdentificationCode>');
  }, 60_000);
});

describe('currencies and rounding amounts', () => {
  test('JPY: amounts without decimals; 50 000 including 10 % has no exact net, so the unit between is the rounding amount BT-114', async () => {
    const doc = taxedDocument(
      'invoice',
      { currency: 'JPY', rounding: 'document', lines: [item({ name: 'Tea set', price: '50000', tax_rate: '10', tax_included: true })] },
      { number: 'INV-JPY-1' },
    );
    const t = doc.taxes!.totals;
    expect(
      [t.tax_exclusive_amount, t.tax_total, t.tax_inclusive_amount, t.rounding_amount, t.payable_amount].map((d) => d.toFixed()),
    ).toEqual(['45455', '4546', '50001', '-1', '50000']);
    const { ubl, cii } = await expectValid(doc);
    expect(ubl).toContain('<cbc:LineExtensionAmount currencyID="JPY">45455</cbc:LineExtensionAmount>');
    expect(ubl).toContain('<cbc:TaxInclusiveAmount currencyID="JPY">50001</cbc:TaxInclusiveAmount>');
    expect(ubl).toContain('<cbc:PayableRoundingAmount currencyID="JPY">-1</cbc:PayableRoundingAmount>');
    expect(ubl).toContain('<cbc:PayableAmount currencyID="JPY">50000</cbc:PayableAmount>');
    expect(ubl).not.toMatch(/currencyID="JPY">\d+\.\d+</);
    expect(cii).toContain('<ram:RoundingAmount>-1</ram:RoundingAmount>');
    expect(cii).toContain('<ram:DuePayableAmount>50000</ram:DuePayableAmount>');
    const text = pdfText(await renderPdf(doc));
    expect(text).toMatch(/Total with tax JP¥50,001/);
    expect(text).toMatch(/Rounding -JP¥1/);
    expect(text).toMatch(/Total JP¥50,000/);
  }, 60_000);

  test('cash rounding to 0.05: the difference is BT-114 in the e-invoice and a row on the PDF', async () => {
    const doc = taxedDocument(
      'invoice',
      { currency: 'EUR', cash_rounding: '0.05', lines: [item({ name: 'Coffee', quantity: '3', price: '2.19', tax_rate: '19' })] },
      { number: 'INV-CASH-1' },
    );
    // 6.57 + 1.25 VAT = 7.82, due 7.80.
    const { ubl } = await expectValid(doc);
    expect(ubl).toContain('<cbc:PayableRoundingAmount currencyID="EUR">-0.02</cbc:PayableRoundingAmount>');
    expect(ubl).toContain('<cbc:PayableAmount currencyID="EUR">7.80</cbc:PayableAmount>');
    expect(pdfText(await renderPdf(doc))).toMatch(/Rounding -€0\.02/);
  }, 60_000);

  test('a USD invoice of a EUR company: BT-6 and the VAT total in EUR as a second TaxTotal (BT-111), on the PDF too', async () => {
    const lines = [item({ name: 'Licence', quantity: '3', price: '333.33', tax_rate: '19' })];
    const draft = taxedDocument('invoice', { currency: 'USD', lines }, { number: 'INV-USD-1' });
    // BT-110 = 19 % of 999.99 = 190.00 USD; at 0.9215 EUR per USD, 175.085 rounds half-up to 175.09 EUR.
    const accounting = accountingCurrency('USD', draft.taxes!.breakdown, { currency: 'EUR', exchange_rate: '0.9215' });
    expect(accounting).toEqual({ currency: 'EUR', exchange_rate: '0.9215', tax_total: '175.09' });
    expect(accountingCurrency('USD', [], { currency: 'usd', exchange_rate: '1' })).toBeNull();
    const doc = { ...draft, accounting };
    const { ubl, cii } = await expectValid(doc);
    expect(ubl).toContain('<cbc:DocumentCurrencyCode>USD</cbc:DocumentCurrencyCode>');
    expect(ubl).toContain('<cbc:TaxCurrencyCode>EUR</cbc:TaxCurrencyCode>');
    expect(ubl).toMatch(/<cac:TaxTotal>\s*<cbc:TaxAmount currencyID="USD">190\.00<\/cbc:TaxAmount>\s*<cac:TaxSubtotal>/);
    expect(ubl).toMatch(/<cac:TaxTotal>\s*<cbc:TaxAmount currencyID="EUR">175\.09<\/cbc:TaxAmount>\s*<\/cac:TaxTotal>/);
    expect(cii).toContain('<ram:TaxCurrencyCode>EUR</ram:TaxCurrencyCode>');
    expect(cii).toContain('<ram:TaxTotalAmount currencyID="USD">190.00</ram:TaxTotalAmount>');
    expect(cii).toContain('<ram:TaxTotalAmount currencyID="EUR">175.09</ram:TaxTotalAmount>');
    const text = pdfText(await renderPdf(doc));
    expect(text).toMatch(/Amounts in USD/);
    expect(text).toMatch(/Total US\$1,189\.99/);
    expect(text).toMatch(/Tax in EUR €175\.09/);
    expect(text).toMatch(/1 USD = 0\.9215 EUR/);
  }, 60_000);

  test('Factur-X of a taxed foreign-currency credit note: its factur-x.xml passes the Factur-X schema and the rules', async () => {
    const draft = taxedDocument('credit_note', mixed, {
      number: 'CRN-TAX-1',
      credited_invoice: { number: 'INV-TAX-1', issue_date: '2026-11-01' },
    });
    const doc = {
      ...draft,
      accounting: accountingCurrency('EUR', draft.taxes!.breakdown, { currency: 'DKK', exchange_rate: '7.4604' }),
    };
    const fx = await renderFacturX(doc, await renderPdf(doc));
    const xml = pdfAttachments(fx)['factur-x.xml']!.toString('utf8');
    expect(await einvoiceFailures('cii', xml, { facturx: true })).toBe('');
    expect(xml).toContain('<ram:TaxTotalAmount currencyID="DKK">226.20</ram:TaxTotalAmount>');
  }, 60_000);

  test('a 3-decimal currency cannot be an EN 16931 e-invoice (BR-DEC): refused with why; the PDF renders with its decimals', async () => {
    const doc = taxedDocument('invoice', {
      currency: 'BHD',
      lines: [item({ name: 'Service', quantity: '3', price: '1.255', tax_rate: '10' })],
    });
    await expect(renderUbl(doc)).rejects.toThrow(/amounts in BHD have 3 decimals, and EN 16931 states amounts with at most 2/);
    const text = pdfText(await renderPdf(doc));
    expect(text).toMatch(/Subtotal BHD 3\.765/);
    expect(text).toMatch(/Tax BHD 0\.377/);
  });
});

/* ---------------------------------------------------------------------------------------------- */
/* Random documents: every category, both policies, EUR and JPY, against the official rules.       */
/* (taxed-arbitraries.ts makes them.)                                                              */
/* ---------------------------------------------------------------------------------------------- */

/** Documents checked against the official rules per category and syntax: 9 x 7 = 63 a run. */
const PER_CATEGORY = Number(process.env.FC_RUNS ?? 7);

describe(`random taxed documents pass the EN 16931 rules in UBL and CII (seed ${SEED})`, () => {
  test.each(CATEGORIES)(
    'documents with %s lines',
    async (category) => {
      let n = 0;
      let pdfs = 0;
      const schemaChecks: Array<{ label: string; ubl: string; cii: string }> = [];
      try {
        await fc.assert(
          fc.asyncProperty(documentArb(category), async ({ kind, spec }) => {
            const doc = decided(kind, spec, ++n);
            fc.pre(doc !== null);
            // The rules document by document (so a failure shrinks); the XSDs for all of them after the run.
            const [ubl, cii] = [await renderUbl(doc), await renderCii(doc)];
            expect(fatalFailures('ubl', ubl)).toBe('');
            expect(fatalFailures('cii', cii)).toBe('');
            schemaChecks.push({ label: `${doc.number} ${JSON.stringify(spec)}`, ubl, cii });
            const t = doc.taxes!;
            const m = t.minor_unit;
            const c = doc.currency;
            // The e-invoice states the kernel's figures, not its own.
            expect(ubl).toContain(
              `<cbc:TaxExclusiveAmount currencyID="${c}">${t.totals.tax_exclusive_amount.toFixed(m)}</cbc:TaxExclusiveAmount>`,
            );
            expect(ubl).toContain(`<cbc:PayableAmount currencyID="${c}">${t.totals.payable_amount.toFixed(m)}</cbc:PayableAmount>`);
            expect(cii).toContain(`<ram:GrandTotalAmount>${t.totals.tax_inclusive_amount.toFixed(m)}</ram:GrandTotalAmount>`);
            t.lines.forEach((l) =>
              expect(ubl).toContain(`<cbc:LineExtensionAmount currencyID="${c}">${l.net.toFixed(m)}</cbc:LineExtensionAmount>`),
            );
            // The first two documents of each category as PDF too: the breakdown row by row, with its exemption.
            if (pdfs < 2) {
              pdfs++;
              const text = pdfText(await renderPdf(doc));
              for (const b of t.breakdown) {
                const amounts = `${escape(money(c, b.taxable_amount.toFixed(m)))} ${escape(money(c, b.tax_amount.toFixed(m)))}`;
                expect(text).toMatch(new RegExp(amounts));
                // The code with its meaning after it (the text may wrap anywhere after the code).
                if (b.exemption_code)
                  expect(text.replace(/\s+/g, ' ')).toContain(`${b.exemption_code}: ${vatexCode(b.exemption_code)!.name.split(' ')[0]}`);
              }
              expect(text).toContain(`Amounts in ${c}`);
            }
          }),
          { seed: SEED, numRuns: PER_CATEGORY, endOnFailure: true },
        );
      } catch (err) {
        throw new Error(`seed ${SEED} (FC_SEED=${SEED} replays): ${String(err)}`, { cause: err });
      }
      const [ublErrors, ciiErrors] = [
        await schemaFailuresOfMany(
          'ubl',
          schemaChecks.map((c) => c.ubl),
        ),
        await schemaFailuresOfMany(
          'cii',
          schemaChecks.map((c) => c.cii),
        ),
      ];
      const invalid = schemaChecks.flatMap((c, i) =>
        ublErrors[i] || ciiErrors[i] ? [`seed ${SEED}, ${c.label}: ${ublErrors[i]} ${ciiErrors[i]}`] : [],
      );
      expect(invalid).toEqual([]);
    },
    240_000,
  );
});
