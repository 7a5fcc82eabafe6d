import Decimal from 'decimal.js';
import { amountText, computeLine, dec, Dec, round2, sumLines, toNumber } from './money';

const amounts = (l: ReturnType<typeof computeLine>) => ({
  subtotal: l.subtotal.toFixed(2),
  tax_amount: l.tax_amount.toFixed(2),
  total: l.total.toFixed(2),
  discount_amount: l.discount_amount.toFixed(2),
});

describe('line arithmetic', () => {
  it("matches the spec's worked example: 5 x 50, 10% off, 15% tax", () => {
    expect(amounts(computeLine({ quantity: '5', price: '50', discount: '10', tax_rate: '15', tax_included: false }))).toEqual({
      subtotal: '225.00',
      tax_amount: '33.75',
      total: '258.75',
      discount_amount: '25.00',
    });
  });

  it('takes the tax out of a tax-included price', () => {
    expect(amounts(computeLine({ quantity: '1', price: '115', tax_rate: '15', tax_included: true }))).toEqual({
      subtotal: '100.00',
      tax_amount: '15.00',
      total: '115.00',
      discount_amount: '0.00',
    });
    const odd = computeLine({ quantity: '3', price: '9.99', tax_rate: '21', tax_included: true });
    expect(odd.total.toFixed(2)).toBe('29.97');
    expect(odd.subtotal.plus(odd.tax_amount).toFixed(2)).toBe('29.97');
  });

  it('is exact where binary floating point is not: 3 x 0.1', () => {
    const l = computeLine({ quantity: '3', price: '0.1', tax_rate: '0', tax_included: false });
    expect(l.total.toFixed()).toBe('0.3');
    expect(toNumber(l.total)).toBe(0.3);
  });

  it('rounds half up per line and sums rounded lines', () => {
    expect(round2('0.005').toFixed(2)).toBe('0.01');
    expect(round2('2.675').toFixed(2)).toBe('2.68');
    const lines = [1, 2, 3].map(() => computeLine({ quantity: '1', price: '0.333', tax_rate: '10', tax_included: false }));
    const totals = sumLines(lines);
    expect(totals.subtotal.toFixed(2)).toBe('0.99');
    expect(totals.tax_amount.toFixed(2)).toBe('0.09');
    expect(totals.total.toFixed(2)).toBe('1.08');
  });
});

describe('amounts as text', () => {
  it('keeps every decimal an amount has and shows at least two', () => {
    expect(['12.5', '0', '-0.01', '10.005', '-7.0040', 1.2345].map((v) => amountText(v))).toEqual([
      '12.50',
      '0.00',
      '-0.01',
      '10.005',
      '-7.004',
      '1.2345',
    ]);
  });
});

describe('dec', () => {
  it('given a Dec, answers that Dec: it is immutable and needs no copy', () => {
    const amount = new Dec('1234.5678');
    expect(dec(amount)).toBe(amount);
  });

  it("given another decimal.js clone's value, answers a Dec with the kernel's precision", () => {
    // decimal.js defaults to 20 significant digits; the kernel's Dec keeps 50.
    const other = new Decimal('1');
    const third = dec(other).div(3);
    expect(dec(other)).not.toBe(other);
    expect(third.toFixed(40)).toBe(`0.${'3'.repeat(40)}`);
  });

  it('given text, a number or nothing, parses it (nothing is 0)', () => {
    expect([dec('10.005').toFixed(), dec(2.5).toFixed(), dec(null).toFixed(), dec(undefined).toFixed()]).toEqual([
      '10.005',
      '2.5',
      '0',
      '0',
    ]);
  });
});
