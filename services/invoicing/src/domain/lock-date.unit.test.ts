import { lockDateRefusal } from './lock-date';

describe('lockDateRefusal', () => {
  it('refuses a date on or before the lock date, naming the field and the lock date', () => {
    for (const date of ['2026-03-31', '2025-12-01']) {
      const refusal = lockDateRefusal('2026-03-31', date, 'payment_date', 'a payment');
      expect(refusal).toMatchObject({ code: 'validation_failed', field: 'payment_date' });
      expect(refusal?.message).toContain('locked up to 2026-03-31');
      expect(refusal?.message).toContain(date);
    }
  });
  it('lets a date after the lock date, or any date without one, through', () => {
    expect(lockDateRefusal('2026-03-31', '2026-04-01', 'payment_date', 'a payment')).toBeNull();
    expect(lockDateRefusal(null, '1999-01-01', 'payment_date', 'a payment')).toBeNull();
  });
});
