import { z } from 'zod';
import { dateField, dateTimeField, money, orgIdField, percentage, quantity } from './fields';

describe('field schemas', () => {
  it('reads org ids from numbers and numeric strings', () => {
    expect(orgIdField.parse('42')).toBe(42);
    expect(orgIdField.parse(42)).toBe(42);
    expect(orgIdField.safeParse('4x2').success).toBe(false);
    expect(orgIdField.safeParse(0).success).toBe(false);
    expect(orgIdField.safeParse(1.5).success).toBe(false);
  });

  it('keeps money exact as a decimal string', () => {
    expect(money().parse(0.1)).toBe('0.1');
    expect(money().parse('12.30')).toBe('12.30');
    expect(money().parse(1e21 / 1e20)).toBe('10');
    expect(quantity().parse(1e-4)).toBe('0.0001');
  });

  it('refuses too many decimals, bounds and non-numbers', () => {
    expect(money().safeParse(1.005).success).toBe(false);
    expect(money({ min: 0 }).safeParse(-1).success).toBe(false);
    expect(quantity({ positive: true }).safeParse(0).success).toBe(false);
    expect(money().safeParse('abc').success).toBe(false);
    expect(money().safeParse(Number.NaN).success).toBe(false);
    expect(money().safeParse(1e15).success).toBe(false);
    expect(money().parse('999999999999.99')).toBe('999999999999.99');
    expect(quantity().safeParse('12345678901.0001').success).toBe(false);
    expect(quantity().parse('9999999999.9999')).toBe('9999999999.9999');
    expect(percentage().safeParse(100.5).success).toBe(false);
    expect(percentage().parse('15')).toBe('15');
  });

  it('gives a bad decimal one message, the most basic that applies', () => {
    const messages = (v: unknown) => {
      const r = quantity({ min: 0, positive: true }).safeParse(v);
      return r.success ? [] : r.error.issues.map((i) => i.message);
    };
    expect(messages('abc')).toHaveLength(1);
    expect(messages(-1)).toEqual(['must be at least 0']);
    expect(messages('0.00001')).toEqual(['must have at most 4 decimal places']);
  });

  it('accepts only real dates and date-times in the documented forms', () => {
    expect(dateField.parse('2024-02-29')).toBe('2024-02-29');
    expect(dateField.safeParse('2023-02-29').success).toBe(false);
    expect(dateField.safeParse('2024-2-9').success).toBe(false);
    expect(dateTimeField.parse('2024-01-31T23:59:59')).toBe('2024-01-31T23:59:59');
    expect(dateTimeField.safeParse('2024-01-31T24:00:00').success).toBe(false);
    expect(dateTimeField.safeParse('2024-01-31').success).toBe(false);
    expect(z.object({ d: dateField }).safeParse({ d: 20240101 }).success).toBe(false);
  });
});
