import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brokenCalculationRules } from '../../test/en16931-rules';
import { ALLOWANCE_REASON_CODES, CHARGE_REASON_CODES } from './allowance-reasons';
import { ISO_4217_CODES, isoCurrency, minorUnit } from './currencies';
import type { TaxDocument, TaxDocumentInput, TaxLineInput } from './document';
import { VATEX_CODES, vatexCode } from './vatex';
import { decideDocumentTaxes, defaultCategory, vatInAccountingCurrency } from './index';

const parties = { seller_vat_id: 'DE123456789', buyer_vat_id: 'FR12345678901' };

function decide(input: Partial<TaxDocumentInput> & Pick<TaxDocumentInput, 'lines'>): TaxDocument {
  const decision = decideDocumentTaxes({ currency: 'EUR', parties, ...input });
  if (!decision.ok) throw new Error(JSON.stringify(decision.errors));
  expect(brokenCalculationRules(decision.document)).toEqual([]);
  return decision.document;
}

function refusals(input: Partial<TaxDocumentInput> & Pick<TaxDocumentInput, 'lines'>) {
  const decision = decideDocumentTaxes({ currency: 'EUR', parties, ...input });
  if (decision.ok) throw new Error('accepted');
  return decision.errors;
}

const figures = (doc: TaxDocument) => ({
  lines: doc.lines.map((l) => [l.net.toFixed(doc.minor_unit), l.tax.toFixed(doc.minor_unit), l.gross.toFixed(doc.minor_unit)]),
  breakdown: doc.breakdown.map((b) => [
    b.tax_category,
    b.tax_rate.toFixed(),
    b.taxable_amount.toFixed(doc.minor_unit),
    b.tax_amount.toFixed(doc.minor_unit),
  ]),
  totals: Object.fromEntries(Object.entries(doc.totals).map(([k, v]) => [k, v.toFixed(doc.minor_unit)])),
});

const line = (quantity: string, price: string, tax_rate: string, tax_included = false, more: Partial<TaxLineInput> = {}): TaxLineInput => ({
  quantity,
  price,
  tax_rate,
  tax_included,
  ...more,
});

describe('tax-inclusive prices that add up (the ERPNext #58712 case)', () => {
  // Two lines at 10.00 including 19 % VAT: the customer sees 20.00. Taking the net out of each line
  // gives 8.40 + 8.40 = 16.80, whose VAT is 3.19: 19.99, a cent short.
  const lines = [line('1', '10.00', '19', true), line('1', '10.00', '19', true)];

  test('document rounding takes the net out of the total: 16.81 + 3.19 = 20.00, nothing to round', () => {
    const doc = decide({ lines, rounding: 'document' });
    expect(figures(doc)).toEqual({
      lines: [
        ['8.41', '1.59', '10.00'],
        ['8.40', '1.60', '10.00'],
      ],
      breakdown: [['S', '19', '16.81', '3.19']],
      totals: {
        line_net_total: '16.81',
        allowance_total: '0.00',
        charge_total: '0.00',
        tax_exclusive_amount: '16.81',
        tax_total: '3.19',
        tax_inclusive_amount: '20.00',
        rounding_amount: '0.00',
        payable_amount: '20.00',
        rounding_from_lines: '0.00',
        rounding_to_cash: '0.00',
      },
    });
  });

  test("line rounding keeps each line as it was and states the lines' VAT as the category's: 16.80 + 3.20 = 20.00, nothing to round", () => {
    const doc = decide({ lines });
    expect(figures(doc).lines).toEqual([
      ['8.40', '1.60', '10.00'],
      ['8.40', '1.60', '10.00'],
    ]);
    // 16.80 x 19 % is 3.192: the lines' 3.20 is within EN 16931's tolerance.
    expect(figures(doc).breakdown).toEqual([['S', '19', '16.80', '3.20']]);
    expect(doc.totals.tax_inclusive_amount.toFixed(2)).toBe('20.00');
    expect(doc.totals.rounding_amount.toFixed(2)).toBe('0.00');
    expect(doc.totals.payable_amount.toFixed(2)).toBe('20.00');
  });
});

describe('one set of numbers under line rounding (issue 40, case 3)', () => {
  test("3 x 19.99 at 19 % and 7 x 0.35 at 7 %, tax included: the breakdown is the lines' 9.58 + 0.16, BT-110 9.74 the invoice's tax, BT-112 = BT-109 + BT-110", () => {
    const doc = decide({ lines: [line('3', '19.99', '19', true), line('7', '0.35', '7', true)] });
    expect(figures(doc).lines).toEqual([
      ['50.39', '9.58', '59.97'],
      ['2.29', '0.16', '2.45'],
    ]);
    // 50.39 x 19 % is 9.5741: the line's 9.58 is within EN 16931's tolerance.
    expect(figures(doc).breakdown).toEqual([
      ['S', '19', '50.39', '9.58'],
      ['S', '7', '2.29', '0.16'],
    ]);
    expect(figures(doc).totals).toMatchObject({
      tax_exclusive_amount: '52.68',
      tax_total: '9.74',
      tax_inclusive_amount: '62.42',
      rounding_amount: '0.00',
      payable_amount: '62.42',
    });
    expect(brokenCalculationRules(doc)).toEqual([]);
  });

  test("document rounding keeps base x rate per category, the rows' difference being BT-114", () => {
    const doc = decide({ rounding: 'document', lines: [line('3', '19.99', '19', true), line('7', '0.35', '7', true)] });
    expect(figures(doc).breakdown.map((b) => b[3])).toEqual(['9.57', '0.16']);
    expect(doc.totals.tax_inclusive_amount.plus(doc.totals.rounding_amount).toFixed(2)).toBe(doc.totals.payable_amount.toFixed(2));
    expect(brokenCalculationRules(doc)).toEqual([]);
  });

  test('rows that drift a whole unit from base x rate fall back to it: 300 lines of 0.05 at 10 % print 0.01 each, 3.00, against 1.50', () => {
    const doc = decide({ lines: Array.from({ length: 300 }, () => line('1', '0.05', '10')) });
    expect(figures(doc).breakdown).toEqual([['S', '10', '15.00', '1.50']]);
    expect(doc.totals.rounding_amount.toFixed(2)).toBe('1.50');
    expect(doc.totals.payable_amount.toFixed(2)).toBe('18.00');
    expect(brokenCalculationRules(doc)).toEqual([]);
  });
});

describe('VAT in the accounting currency (issue 40, case 2)', () => {
  test('each category converted and rounded on its own, BT-111 their sum: 12.35 and 7.65 USD at 0.9234 are 11.40 + 7.06 = 18.46 EUR', () => {
    const vat = vatInAccountingCurrency(
      [
        { tax_category: 'S', tax_rate: '20', tax_amount: '12.35' },
        { tax_category: 'S', tax_rate: '10', tax_amount: '7.65' },
      ],
      '0.9234',
      'eur',
    );
    expect(vat.currency).toBe('EUR');
    expect(vat.categories.map((c) => c.tax_amount.toFixed(2))).toEqual(['11.40', '7.06']);
    // Converting BT-110 whole would say 20.00 x 0.9234 = 18.47.
    expect(vat.tax_total.toFixed(2)).toBe('18.46');
    expect(vatInAccountingCurrency([{ tax_category: 'S', tax_rate: '10', tax_amount: '100' }], '162.345', 'JPY').tax_total.toFixed()).toBe(
      '16235',
    );
    expect(() => vatInAccountingCurrency([], '0', 'EUR')).toThrow(/not above 0/);
  });
});

describe('JPY (no decimals)', () => {
  test('50 000 including 10 %: no net gives exactly 50 000 with its VAT, so the yen between is the rounding amount', () => {
    const doc = decide({ currency: 'JPY', rounding: 'document', lines: [line('1', '50000', '10', true)] });
    expect(figures(doc)).toMatchObject({
      lines: [['45455', '4545', '50000']],
      breakdown: [['S', '10', '45455', '4546']],
      totals: { tax_inclusive_amount: '50001', rounding_amount: '-1', payable_amount: '50000' },
    });
    // Under line rounding the category's VAT is the line's 4545, within a yen of 4545.5.
    expect(figures(decide({ currency: 'JPY', lines: [line('1', '50000', '10', true)] }))).toMatchObject({
      breakdown: [['S', '10', '45455', '4545']],
      totals: { tax_inclusive_amount: '50000', rounding_amount: '0', payable_amount: '50000' },
    });
  });

  test('amounts are whole yen', () => {
    const doc = decide({ currency: 'jpy', lines: [line('3', '333.5', '8'), line('1', '99.99', '10')] });
    expect(figures(doc)).toMatchObject({
      lines: [
        ['1001', '80', '1081'],
        ['100', '10', '110'],
      ],
      breakdown: [
        ['S', '8', '1001', '80'],
        ['S', '10', '100', '10'],
      ],
    });
    expect(doc.currency).toBe('JPY');
    expect(doc.minor_unit).toBe(0);
  });
});

describe('BHD (three decimals)', () => {
  const lines = [line('3', '1.255', '10'), line('2', '0.3335', '10', true)];

  test("line rounding: each line to the fils, the category's VAT what they add up to", () => {
    const doc = decide({ currency: 'BHD', lines });
    expect(figures(doc)).toMatchObject({
      lines: [
        ['3.765', '0.377', '4.142'],
        ['0.606', '0.061', '0.667'],
      ],
      breakdown: [['S', '10', '4.371', '0.438']],
      totals: { tax_inclusive_amount: '4.809', rounding_amount: '0.000', payable_amount: '4.809' },
    });
  });

  test('document rounding: the same 4.809, made of 4.372 and 0.437', () => {
    const doc = decide({ currency: 'BHD', rounding: 'document', lines });
    expect(figures(doc)).toMatchObject({
      lines: [
        ['3.765', '0.377', '4.142'],
        ['0.607', '0.060', '0.667'],
      ],
      breakdown: [['S', '10', '4.372', '0.437']],
      totals: { tax_inclusive_amount: '4.809', rounding_amount: '0.000', payable_amount: '4.809' },
    });
  });
});

describe('allowances, charges and cash rounding', () => {
  test('a 10 % allowance on the 20 % lines and a freight charge: the bases, then the VAT on each', () => {
    const doc = decide({
      rounding: 'document',
      lines: [line('1', '100', '20'), line('1', '50', '20'), line('2', '7.45', '5.5')],
      allowances_charges: [
        { charge: false, percent: '10', reason: 'Loyalty discount', reason_code: '95', tax_rate: '20' },
        { charge: true, amount: '12.50', reason: 'Freight', reason_code: 'FC', tax_rate: '20' },
      ],
    });
    expect(figures(doc)).toMatchObject({
      breakdown: [
        ['S', '20', '147.50', '29.50'],
        ['S', '5.5', '14.90', '0.82'],
      ],
      totals: {
        line_net_total: '164.90',
        allowance_total: '15.00',
        charge_total: '12.50',
        tax_exclusive_amount: '162.40',
        tax_total: '30.32',
        tax_inclusive_amount: '192.72',
        payable_amount: '192.72',
      },
    });
    expect(doc.allowances_charges.map((a) => [a.amount.toFixed(2), a.base_amount?.toFixed(2) ?? null, a.tax.toFixed(2)])).toEqual([
      ['15.00', '150.00', '3.00'],
      ['12.50', null, '2.50'],
    ]);
  });

  test('cash rounding to 0.05 rounds what is due, and says so in the rounding amount', () => {
    const doc = decide({ currency: 'CHF', cash_rounding: '0.05', lines: [line('1', '10.03', '8.1')] });
    expect(figures(doc).totals).toMatchObject({
      tax_inclusive_amount: '10.84',
      rounding_to_cash: '0.01',
      rounding_amount: '0.01',
      payable_amount: '10.85',
    });
  });
});

describe('VAT categories', () => {
  test('a line without a category is S when it charges VAT, Z when not', () => {
    expect(defaultCategory('19')).toBe('S');
    expect(defaultCategory('0')).toBe('Z');
    expect(decide({ lines: [line('1', '10', '0'), line('1', '10', '7')] }).lines.map((l) => l.tax_category)).toEqual(['Z', 'S']);
  });

  test('a reverse-charge document: no VAT, the reason, and both VAT ids', () => {
    const doc = decide({
      lines: [line('10', '120', '0', false, { tax_category: 'AE', tax_exemption_reason: 'Reverse charge' })],
    });
    expect(doc.breakdown).toHaveLength(1);
    expect(doc.breakdown[0]).toMatchObject({ tax_category: 'AE', exemption_reason: 'Reverse charge', exemption_code: 'VATEX-EU-AE' });
    expect(figures(doc).totals).toMatchObject({ tax_exclusive_amount: '1200.00', tax_total: '0.00', payable_amount: '1200.00' });

    const withoutBuyerId = refusals({
      parties: { seller_vat_id: 'DE123456789', buyer_vat_id: ' ' },
      lines: [line('10', '120', '0', false, { tax_category: 'AE', tax_exemption_code: 'vatex-eu-ae' })],
    });
    expect(withoutBuyerId).toEqual([
      { field: 'buyer.vat_id', message: "a reverse-charge (AE) line (line_items.0) needs the buyer's VAT id (BR-AE-02)" },
    ]);
  });

  test('reverse charge and intra-community supply have rate 0; standard rate has a rate above 0', () => {
    expect(
      refusals({
        lines: [
          line('1', '10', '19', false, { tax_category: 'AE', tax_exemption_code: 'VATEX-EU-AE' }),
          line('1', '10', '0', false, { tax_category: 'S' }),
          line('1', '10', '7', false, { tax_category: 'K', tax_exemption_code: 'VATEX-EU-IC' }),
        ],
      }),
    ).toEqual([
      { field: 'line_items.0.tax_rate', message: 'a reverse-charge (AE) line has a rate of 0 (BR-AE-05)' },
      { field: 'line_items.1.tax_rate', message: 'a standard-rated (S) line has a rate above 0 (BR-S-05)' },
      { field: 'line_items.2.tax_rate', message: 'an intra-community (K) line has a rate of 0 (BR-IC-05)' },
    ]);
  });

  test('IGIC (L) has a rate above 0 on lines, allowances and charges (the CII rules BR-AF-05..07); IPSI (M) takes 0', () => {
    expect(
      refusals({
        lines: [line('1', '10', '0', false, { tax_category: 'L' }), line('1', '10', '0', false, { tax_category: 'M' })],
        allowances_charges: [
          { charge: false, amount: '1', reason: 'Discount', tax_category: 'L', tax_rate: '0' },
          { charge: true, amount: '1', reason: 'Freight', tax_category: 'L', tax_rate: '0' },
        ],
      }),
    ).toEqual([
      { field: 'line_items.0.tax_rate', message: 'an IGIC (L) line has a rate above 0 (BR-AF-05)' },
      { field: 'allowances_charges.0.tax_rate', message: 'an IGIC (L) allowance has a rate above 0 (BR-AF-06)' },
      { field: 'allowances_charges.1.tax_rate', message: 'an IGIC (L) charge has a rate above 0 (BR-AF-07)' },
    ]);
    expect(decideDocumentTaxes({ currency: 'EUR', parties, lines: [line('1', '10', '7', false, { tax_category: 'L' })] }).ok).toBe(true);
  });

  test('O excludes every other category from the document', () => {
    expect(
      refusals({
        parties: { seller_vat_id: null, buyer_vat_id: null },
        lines: [line('1', '10', '20'), line('1', '5', '0', false, { tax_category: 'O', tax_exemption_reason: 'Not subject to VAT' })],
      }),
    ).toEqual([
      {
        field: 'line_items.1.tax_category',
        message: 'O (outside the scope of VAT) excludes every other category from the document, and line_items.0 is S (BR-O-11..14)',
      },
    ]);
    const alone = decide({
      lines: [line('1', '5', '0', false, { tax_category: 'O', tax_exemption_reason: 'Not subject to VAT' })],
    });
    expect(alone.breakdown.map((b) => [b.tax_category, b.exemption_code])).toEqual([['O', 'VATEX-EU-O']]);
  });

  test('exemptions: needed by E, AE, K, G and O; none on S, Z, L, M; a listed VATEX code of the right category; one per category', () => {
    expect(
      refusals({
        lines: [
          line('1', '10', '0', false, { tax_category: 'E' }),
          line('1', '10', '20', false, { tax_exemption_reason: 'Why not' }),
          line('1', '10', '0', false, { tax_category: 'E', tax_exemption_code: 'VATEX-EU-IC' }),
          line('1', '10', '0', false, { tax_category: 'E', tax_exemption_code: 'VATEX-EU-999' }),
          line('1', '10', '0', false, { tax_category: 'G', tax_exemption_reason: 'Export' }),
          line('1', '10', '0', false, { tax_category: 'G', tax_exemption_reason: 'Export outside the EU' }),
        ],
      }),
    ).toEqual([
      {
        field: 'line_items.0.tax_exemption_reason',
        message: 'an exempt (E) line needs tax_exemption_reason or tax_exemption_code (BR-E-10)',
      },
      { field: 'line_items.1.tax_exemption_reason', message: 'a standard-rated (S) line states no exemption reason (BR-S-10)' },
      { field: 'line_items.2.tax_exemption_code', message: 'VATEX-EU-IC (Intra-community supply) goes with category K, not E' },
      { field: 'line_items.3.tax_exemption_code', message: 'VATEX-EU-999 is not in the VATEX code list (BR-CL-22)' },
      {
        field: 'line_items.3.tax_exemption_code',
        message: 'one document states one tax_exemption_code per category: line_items.2 gives E "VATEX-EU-IC" (BR-E-01)',
      },
      {
        field: 'line_items.5.tax_exemption_reason',
        message: 'one document states one tax_exemption_reason per category: line_items.4 gives G "Export" (BR-G-01)',
      },
    ]);
  });

  test('an exempt charge on a document without exempt lines brings its own reason', () => {
    const charge = { charge: true, amount: '5', reason: 'Insurance', tax_category: 'E', tax_rate: '0' };
    expect(refusals({ lines: [line('1', '10', '20')], allowances_charges: [charge] })).toEqual([
      {
        field: 'allowances_charges.0.tax_exemption_reason',
        message:
          'an exempt (E) charge needs an exemption reason: give tax_exemption_reason or tax_exemption_code here or on a line of the category (BR-E-10)',
      },
    ]);
    const doc = decide({ lines: [line('1', '10', '20')], allowances_charges: [{ ...charge, tax_exemption_code: 'VATEX-EU-132-1E' }] });
    expect(doc.breakdown.map((b) => [b.tax_category, b.taxable_amount.toFixed(2), b.exemption_code])).toEqual([
      ['S', '10.00', null],
      ['E', '5.00', 'VATEX-EU-132-1E'],
    ]);
  });
});

describe('refusals of the document and its allowances', () => {
  test('currency, rounding and cash rounding', () => {
    expect(refusals({ currency: 'XAU', lines: [] })).toEqual([
      { field: 'currency', message: 'XAU has no minor unit in ISO 4217: no document is priced in it' },
    ]);
    expect(refusals({ currency: 'EURO', lines: [] })).toEqual([{ field: 'currency', message: 'EURO is no ISO 4217 currency code' }]);
    expect(refusals({ rounding: 'nearest', lines: [] })).toEqual([{ field: 'rounding', message: 'rounding is line or document' }]);
    expect(refusals({ currency: 'JPY', cash_rounding: '0.5', lines: [] })).toEqual([
      { field: 'cash_rounding', message: "cash_rounding is a multiple of the currency's smallest amount (0 decimals)" },
    ]);
    expect(refusals({ cash_rounding: '0', lines: [] })).toEqual([
      { field: 'cash_rounding', message: 'cash_rounding is an amount above 0' },
    ]);
  });

  test('an allowance states its amount or a percent, a reason, and cannot take a base below zero', () => {
    const lines = [line('1', '10', '20')];
    expect(
      refusals({
        lines,
        allowances_charges: [
          { charge: false, tax_rate: '20' },
          { charge: false, amount: '1.005', percent: '5', reason_code: '999', tax_rate: '20' },
          { charge: true, base_amount: '10', amount: '1', reason: 'Freight', tax_rate: '20' },
        ],
      }),
    ).toEqual([
      { field: 'allowances_charges.0.reason', message: 'an allowance states its reason or reason_code (BR-33)' },
      { field: 'allowances_charges.0.amount', message: 'an allowance gives its amount, or a percent of a base (BR-31)' },
      { field: 'allowances_charges.1.reason_code', message: '999 is not an allowance reason code (UNCL 5189, BR-CL-19)' },
      { field: 'allowances_charges.1.percent', message: 'an allowance gives amount or percent, not both' },
      { field: 'allowances_charges.1.amount', message: 'amount has at most 2 decimals in this currency' },
      { field: 'allowances_charges.2.base_amount', message: 'base_amount goes with percent' },
    ]);
    expect(refusals({ lines, allowances_charges: [{ charge: false, amount: '10.01', reason: 'Goodwill', tax_rate: '20' }] })).toEqual([
      {
        field: 'allowances_charges.0.amount',
        message: 'the allowances of S 20 % take its base below 0: the lines of that category and rate come to 10.00',
      },
    ]);
  });

  test('numbers that are none are refused by name, not thrown', () => {
    expect(refusals({ lines: [{ quantity: 'x', price: '1', tax_rate: 'y', tax_included: false }] })).toEqual([
      { field: 'line_items.0.quantity', message: 'quantity is a number' },
      { field: 'line_items.0.tax_rate', message: 'tax_rate is a percentage, 0 or more' },
    ]);
  });
});

describe('the code lists', () => {
  const rules = readFileSync(join(__dirname, '../../../../packages/documents/einvoice-rules/ubl/xslt/EN16931-UBL-validation.xslt'), 'utf8');
  const listIn = (rule: string) => {
    const at = rules.indexOf(`<xsl:attribute name="id">${rule}</xsl:attribute>`);
    const test = rules.lastIndexOf('contains(', at);
    return new Set((/contains\('\s*([^']*?)\s*'/.exec(rules.slice(test)) ?? [])[1]?.split(' '));
  };

  test('VATEX: exactly the codes the EN 16931 rules accept (BR-CL-22), each with one category', () => {
    expect(new Set(VATEX_CODES.map((v) => v.code))).toEqual(listIn('BR-CL-22'));
    expect(vatexCode(' vatex-eu-ic ')).toMatchObject({ code: 'VATEX-EU-IC', category: 'K' });
    expect(VATEX_CODES.filter((v) => v.category !== 'E').map((v) => `${v.code} ${v.category}`)).toEqual([
      'VATEX-EU-AE AE',
      'VATEX-EU-G G',
      'VATEX-EU-IC K',
      'VATEX-EU-O O',
      'VATEX-FR-AE AE',
    ]);
  });

  test('allowance and charge reason codes: those of BR-CL-19 and BR-CL-20', () => {
    expect(ALLOWANCE_REASON_CODES).toEqual(listIn('BR-CL-19'));
    expect(CHARGE_REASON_CODES).toEqual(listIn('BR-CL-20'));
  });

  test('ISO 4217: 178 current codes; the EN 16931 rules of 1.3.16 differ from it in four codes', () => {
    expect(ISO_4217_CODES).toHaveLength(178);
    const en16931 = listIn('BR-CL-04');
    expect([...en16931].filter((c) => !ISO_4217_CODES.includes(c)).sort()).toEqual(['CNH', 'STD']);
    expect(ISO_4217_CODES.filter((c) => !en16931.has(c))).toEqual(['CUC', 'STN']);
  });

  test('minor units', () => {
    expect(['JPY', 'EUR', 'BHD', 'KWD', 'JOD', 'OMR', 'TND', 'LYD', 'IQD', 'CLF', 'XAU', 'ZZZ'].map((c) => minorUnit(c))).toEqual([
      0,
      2,
      3,
      3,
      3,
      3,
      3,
      3,
      3,
      4,
      null,
      undefined,
    ]);
    expect(ISO_4217_CODES.filter((c) => minorUnit(c) === 0)).toEqual([
      'BIF',
      'CLP',
      'DJF',
      'GNF',
      'ISK',
      'JPY',
      'KMF',
      'KRW',
      'PYG',
      'RWF',
      'UGX',
      'UYI',
      'VND',
      'VUV',
      'XAF',
      'XOF',
      'XPF',
    ]);
    expect(isoCurrency('BGN')).toEqual({ code: 'BGN', name: 'Bulgarian Lev', minor_unit: 2, current: false });
  });
});
