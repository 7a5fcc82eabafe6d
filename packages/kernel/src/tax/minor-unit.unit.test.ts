import { finerThanCurrency } from './index';

describe('an amount finer than its currency', () => {
  it("is judged by the currency's minor unit: 3 for BHD, 2 for EUR and without a currency, 0 for JPY", () => {
    expect(finerThanCurrency('amount', '1.234', 'BHD')).toBeUndefined();
    expect(finerThanCurrency('amount', '1.2345', 'BHD')).toBe('amount 1.2345 has more decimals than BHD has (3)');
    expect(finerThanCurrency('amount', '1.234', 'EUR')).toBe('amount 1.234 has more decimals than EUR has (2)');
    expect(finerThanCurrency('amount', '1.234', null)).toBe('amount 1.234 has more decimals than the currency has (2)');
    expect(finerThanCurrency('amount', '100.5', 'JPY')).toBe('amount 100.5 has more decimals than JPY has (0)');
  });

  it('keeps a floor of decimals whatever the currency, when asked', () => {
    expect(finerThanCurrency('credit_limit', '100.5', 'JPY', 2)).toBeUndefined();
    expect(finerThanCurrency('credit_limit', '100.505', 'JPY', 2)).toBe('credit_limit 100.505 has more decimals than JPY has (2)');
    expect(finerThanCurrency('credit_limit', '10.005', 'KWD', 2)).toBeUndefined();
  });
});
