import { computeLine } from '@bo/kernel';
import fc from 'fast-check';
import { netLine } from './net-line';

type Spec = { quantity: string; price: string; discount: string; tax_rate: string; tax_included: boolean };

function withAmounts(spec: Spec) {
  const a = computeLine(spec);
  return { name: 'x', ...spec, subtotal: a.subtotal.toFixed(2), tax_amount: a.tax_amount.toFixed(2), total: a.total.toFixed(2) };
}

describe('netLine', () => {
  test('a plain line keeps its price and has no allowance', () => {
    const n = netLine(withAmounts({ quantity: '7.5', price: '95', discount: '0', tax_rate: '20', tax_included: false }));
    expect([n.gross.toFixed(2), n.allowance.toFixed(2), n.price.toFixed(), n.baseQuantity.toFixed()]).toEqual([
      '712.50',
      '0.00',
      '95',
      '1',
    ]);
  });

  test('a discount is the allowance from the gross amount to the stored subtotal', () => {
    const n = netLine(withAmounts({ quantity: '3', price: '19.99', discount: '10', tax_rate: '20', tax_included: false }));
    expect([n.gross.toFixed(2), n.allowance.toFixed(2), n.price.toFixed()]).toEqual(['59.97', '6.00', '19.99']);
  });

  test('a tax-included price becomes its exact net price', () => {
    const n = netLine(withAmounts({ quantity: '2', price: '12.50', discount: '0', tax_rate: '5.5', tax_included: true }));
    expect([n.gross.toFixed(2), n.price.toFixed(), n.baseQuantity.toFixed()]).toEqual(['23.70', '11.85', '1']);
  });

  test('without an exact unit price in cents, the price is stated for the whole quantity', () => {
    const n = netLine(withAmounts({ quantity: '3', price: '3.3333', discount: '0', tax_rate: '20', tax_included: false }));
    expect([n.gross.toFixed(2), n.price.toFixed(2), n.baseQuantity.toFixed()]).toEqual(['10.00', '10.00', '3']);
  });

  test('for any line: quantity x price / base - allowance is the stored subtotal, nothing is negative, prices are in cents', () => {
    const decimal = (max: number, places: number) =>
      fc.integer({ min: 0, max: max * 10 ** places }).map((n) => (n / 10 ** places).toFixed(places));
    fc.assert(
      fc.property(
        decimal(1000, 4).filter((q) => Number(q) > 0),
        decimal(10000, 4),
        decimal(100, 2),
        fc.constantFrom('0', '5.5', '7', '19', '20', '21', '25'),
        fc.boolean(),
        (quantity, price, discount, tax_rate, tax_included) => {
          const line = withAmounts({ quantity, price, discount, tax_rate, tax_included });
          const n = netLine(line);
          expect(n.price.times(line.quantity).div(n.baseQuantity).minus(n.allowance).toFixed(2)).toBe(line.subtotal);
          expect(n.allowance.isNegative()).toBe(false);
          expect(n.price.isNegative()).toBe(false);
          expect(n.price.decimalPlaces()).toBeLessThanOrEqual(2);
        },
      ),
      { numRuns: 500 },
    );
  });
});
