import { formatter } from './format';

describe('formatter', () => {
  test('money is exact and in the document currency', () => {
    const f = formatter('EUR');
    expect(f.money('1003.14')).toBe('€1,003.14');
    expect(f.money('0.3')).toBe('€0.30');
    // Beyond a double's precision: still exact.
    expect(f.money('12345678901234567.89')).toBe('€12,345,678,901,234,567.89');
    expect(formatter('GBP').money('5')).toBe('£5.00');
    expect(formatter('JPY').money('1200')).toBe('JP¥1,200');
  });

  test('unit prices keep their four decimals, quantities and rates theirs', () => {
    const f = formatter('EUR');
    expect(f.price('10.0001')).toBe('€10.0001');
    expect(f.price('10')).toBe('€10.00');
    expect(f.number('1.25')).toBe('1.25');
    expect(f.percent('5.5')).toBe('5.5 %');
  });

  test('a calendar date is shown as it is, in any time zone', () => {
    expect(formatter('EUR').date('2026-11-02')).toBe('2 November 2026');
    expect(formatter('EUR', 'de-DE').date('2026-11-02T23:30:00Z')).toBe('2. November 2026');
  });
});
