import { dec, decideDocumentTaxes, toNumber } from '@bo/kernel';
import type { ResolvedLine } from '@bo/billing';
import { documentTooLarge, documentTotals, lineTooLarge, priceLine, quotationLineAmounts, validUntilBeforeDate } from './quotation-lines';

const line = (over: Partial<ResolvedLine> = {}): ResolvedLine => ({
  product_id: '1',
  variant_id: null,
  location_id: null,
  product_name: 'Widget',
  sku: null,
  uom: null,
  description: null,
  quantity: '5',
  price: '50',
  discount: '10',
  tax_rate: '15',
  tax_included: false,
  tax_category: null,
  ...over,
});

describe('quotation line arithmetic', () => {
  it("reproduces the spec's worked example: 5 x 50, 10% off, 15% tax", () => {
    const { amounts } = priceLine(line());
    expect(amounts.subtotal.toFixed(2)).toBe('225.00');
    expect(amounts.tax_amount.toFixed(2)).toBe('33.75');
    expect(amounts.total.toFixed(2)).toBe('258.75');
    expect(amounts.discount_amount.toFixed(2)).toBe('25.00');
  });

  it('takes the tax out of a tax-included price', () => {
    const { amounts } = priceLine(line({ quantity: '1', price: '115', discount: undefined, tax_included: true }));
    expect(amounts.total.toFixed(2)).toBe('115.00');
    expect(amounts.subtotal.toFixed(2)).toBe('100.00');
    expect(amounts.tax_amount.toFixed(2)).toBe('15.00');
  });

  it('rounds half-up per line and sums the rounded lines', () => {
    // 3 x 0.335 = 1.005 -> 1.01; tax 10% of 1.005 = 0.1005 -> 0.10
    const a = priceLine(line({ quantity: '3', price: '0.335', discount: '0', tax_rate: '10' })).amounts;
    expect(a.subtotal.toFixed(2)).toBe('1.01');
    expect(a.tax_amount.toFixed(2)).toBe('0.10');
    const totals = documentTotals([a, a, priceLine(line()).amounts]);
    expect(totals.subtotal.toFixed(2)).toBe('227.02');
    expect(totals.tax_amount.toFixed(2)).toBe('33.95');
    expect(totals.total.toFixed(2)).toBe('260.97');
    expect(totals.discount_total.toFixed(2)).toBe('25.00');
  });

  it('ignores amounts the client sent', () => {
    const { amounts } = priceLine(line({ subtotal: '1', tax_amount: '1', total: '2' }));
    expect(amounts.total.toFixed(2)).toBe('258.75');
  });

  it("stores a line's amounts as the document's calculation gave them, its category and discount included", () => {
    const decision = decideDocumentTaxes({ currency: 'EUR', parties: null, lines: [priceLine(line())] });
    if (!decision.ok) throw new Error('refused');
    expect(quotationLineAmounts(decision.document.lines[0]!, 2)).toEqual({
      tax_category: 'S',
      subtotal: '225.00',
      tax_amount: '33.75',
      total: '258.75',
      discount_amount: '25.00',
    });
  });

  it('refuses amounts too large to stay exact', () => {
    expect(lineTooLarge(priceLine(line({ quantity: '1000000', price: '1000000', discount: '0' })).amounts)).toBe(true);
    expect(lineTooLarge(priceLine(line()).amounts)).toBe(false);
    // A full discount leaves nothing to pay but a discount amount no column holds (the fuzz suite's 500).
    expect(lineTooLarge(priceLine(line({ quantity: '9999999999.9999', price: '9999999999.9999', discount: '100' })).amounts)).toBe(true);
    expect(lineTooLarge(priceLine(line({ quantity: '1000', price: '999999', discount: '100' })).amounts)).toBe(false);
    const totals = (v: string) => ({ subtotal: dec(v), tax_amount: dec(0), discount_total: dec(0), total: dec(v) });
    // 99999999999999.99 would reach the client as 99999999999999.98; everything accepted arrives exact.
    expect(String(toNumber('99999999999999.99'))).toBe('99999999999999.98');
    expect(documentTooLarge(totals('99999999999999.99'))).toBe(true);
    expect(documentTooLarge(totals('1e13'))).toBe(true);
    expect(documentTooLarge(totals('9999999999999.99'))).toBe(false);
    expect(documentTooLarge({ ...totals('0'), discount_total: dec('1e13') })).toBe(true);
    expect(String(JSON.parse(JSON.stringify(toNumber('9999999999999.99'))))).toBe('9999999999999.99');
  });

  it('keeps valid_until on or after the quotation day', () => {
    expect(validUntilBeforeDate('2024-05-10T15:00:00', '2024-05-10')).toBe(false);
    expect(validUntilBeforeDate('2024-05-10T15:00:00', '2024-05-09')).toBe(true);
  });
});
