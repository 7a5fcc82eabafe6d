import { decideDocumentTaxes, dec } from '@bo/kernel';
import { eInvoiceRefusal, missingForEInvoice } from './einvoice/requirements';
import type { DocumentLine } from './model';
import { accountingCurrency, amount, documentCategories, documentTaxes } from './taxes';

const line = (tax_rate: string, subtotal: string, tax_amount: string): DocumentLine => ({
  name: 'x',
  quantity: '1',
  price: subtotal,
  discount: '0',
  tax_rate,
  tax_included: false,
  subtotal,
  tax_amount,
  total: dec(subtotal).plus(tax_amount).toFixed(2),
});

describe('documentTaxes', () => {
  test('a document without taxes: S or Z by rate, the breakdown sums the stored lines per rate (highest first), the stored totals', () => {
    const lines = [line('0', '5.00', '0.00'), line('20', '10.00', '2.00'), line('20', '0.83', '0.17')];
    const t = documentTaxes({ currency: 'EUR', lines, totals: { subtotal: '15.83', tax_amount: '2.17', total: '18.00' } });
    expect(t.minor_unit).toBe(2);
    expect(t.lines.map((l) => l.tax_category)).toEqual(['Z', 'S', 'S']);
    expect(t.breakdown.map((b) => [b.tax_category, b.tax_rate.toFixed(), b.taxable_amount.toFixed(2), b.tax_amount.toFixed(2)])).toEqual([
      ['S', '20', '10.83', '2.17'],
      ['Z', '0', '5.00', '0.00'],
    ]);
    expect(t.totals.payable_amount.toFixed(2)).toBe('18.00');
    expect(t.totals.rounding_amount.isZero()).toBe(true);
    expect(t.allowances_charges).toEqual([]);
  });

  test("a document with taxes renders the kernel's, and they must be one per line", () => {
    const decision = decideDocumentTaxes({
      currency: 'JPY',
      lines: [{ quantity: '1', price: '50000', tax_rate: '10', tax_included: true }],
      parties: null,
    });
    if (!decision.ok) throw new Error('refused');
    const doc = { currency: 'JPY', lines: [line('10', '45455', '4545')], totals: { subtotal: '0', tax_amount: '0', total: '0' } };
    expect(documentTaxes({ ...doc, taxes: decision.document })).toBe(decision.document);
    expect(() => documentTaxes({ ...doc, lines: [], taxes: decision.document })).toThrow(/0 lines and taxes for 1/);
  });

  test('the categories a document names: its lines, allowances and charges', () => {
    const decision = decideDocumentTaxes({
      currency: 'EUR',
      lines: [{ quantity: '1', price: '10', tax_rate: '0', tax_included: false, tax_category: 'AE', tax_exemption_code: 'VATEX-EU-AE' }],
      allowances_charges: [{ charge: true, amount: '5', reason: 'Freight', tax_category: 'S', tax_rate: '20' }],
      parties: null,
    });
    if (!decision.ok) throw new Error('refused');
    expect([...documentCategories({ lines: [], taxes: decision.document })].sort()).toEqual(['AE', 'S']);
    expect([...documentCategories({ lines: [line('0', '1.00', '0.00')] })]).toEqual(['Z']);
  });
});

test('amounts are written with the currency decimals, never as -0', () => {
  expect(amount('50000', 0)).toBe('50000');
  expect(amount('12.5', 2)).toBe('12.50');
  expect(amount(dec(0).neg(), 2)).toBe('0.00');
});

const vat = (...amounts: string[]) => amounts.map((tax_amount, n) => ({ tax_category: 'S', tax_rate: String(20 - n), tax_amount }));

test("accountingCurrency: BT-111 is each category's VAT at the rate, half-up to the accounting currency, summed; nothing in the same currency", () => {
  expect(accountingCurrency('USD', vat('190.00'), { currency: 'eur', exchange_rate: '0.9215' })).toEqual({
    currency: 'EUR',
    exchange_rate: '0.9215',
    tax_total: '175.09',
  });
  // 12.35 and 7.65 USD at 0.9234: 11.40 + 7.06 = 18.46, what the journal posts (20.00 whole would say 18.47).
  expect(accountingCurrency('USD', vat('12.35', '7.65'), { currency: 'EUR', exchange_rate: '0.9234' })?.tax_total).toBe('18.46');
  expect(accountingCurrency('EUR', vat('100.00'), { currency: 'JPY', exchange_rate: '162.345' })).toEqual({
    currency: 'JPY',
    exchange_rate: '162.345',
    tax_total: '16235',
  });
  expect(accountingCurrency('EUR', vat('1'), { currency: 'EUR', exchange_rate: '1' })).toBeNull();
  expect(() => accountingCurrency('EUR', vat('1'), { currency: 'USD', exchange_rate: '0' })).toThrow(/not above 0/);
});

describe('what an e-invoice needs, by category', () => {
  const complete = {
    kind: 'invoice' as const,
    currency: 'EUR',
    draft: false,
    lines: [line('20', '1.00', '0.20')],
    seller: { name: 'Acme', country: 'IE', email: 'a@acme.test' },
    buyer: { name: 'Client', country: 'GR', email: 'c@client.test' },
  };
  const taxed = (category: string, code: string) => {
    const decision = decideDocumentTaxes({
      currency: 'EUR',
      lines: [{ quantity: '1', price: '1', tax_rate: '0', tax_included: false, tax_category: category, tax_exemption_code: code }],
      parties: null,
    });
    if (!decision.ok) throw new Error('refused');
    return decision.document;
  };

  test('every category but O needs the seller VAT id; AE and K the buyer one too; O neither, but the seller registration id (BR-CO-26)', () => {
    expect(missingForEInvoice(complete)).toEqual(['seller.vat_id']);
    expect(missingForEInvoice({ ...complete, taxes: taxed('AE', 'VATEX-EU-AE') })).toEqual(['seller.vat_id', 'buyer.vat_id']);
    expect(missingForEInvoice({ ...complete, taxes: taxed('K', 'VATEX-EU-IC') })).toEqual(['seller.vat_id', 'buyer.vat_id']);
    expect(missingForEInvoice({ ...complete, taxes: taxed('G', 'VATEX-EU-G') })).toEqual(['seller.vat_id']);
    expect(missingForEInvoice({ ...complete, taxes: taxed('O', 'VATEX-EU-O') })).toEqual(['seller.company_id']);
    const registered = { ...complete, seller: { ...complete.seller, company_id: 'HRB 1' } };
    expect(missingForEInvoice({ ...registered, taxes: taxed('O', 'VATEX-EU-O') })).toEqual([]);
  });

  test('a currency of three decimals is no e-invoice (BR-DEC); 0 and 2 are', () => {
    expect(eInvoiceRefusal({ ...complete, currency: 'KWD' })).toMatch(/amounts in KWD have 3 decimals/);
    expect(eInvoiceRefusal({ ...complete, currency: 'JPY' })).toBeNull();
    expect(eInvoiceRefusal({ ...complete, currency: 'EUR' })).toBeNull();
  });
});
