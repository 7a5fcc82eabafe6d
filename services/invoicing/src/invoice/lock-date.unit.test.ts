import { AppError } from '@bo/runtime';
import { settingsReading, type OrganizationSettings } from '@bo/billing';
import { assertAfterLockDate } from './lock-date';

const locked = { org_id: 1, lock_date: '2026-03-31' } as unknown as OrganizationSettings;

describe('assertAfterLockDate', () => {
  it('given settings read held, refuses a date on or before the lock date naming the field, and lets a later one through', () => {
    const held = settingsReading(locked, { held: true });
    expect(() => assertAfterLockDate(held, '2026-03-31', 'payment_date', 'a payment')).toThrow(
      expect.objectContaining({ status: 400, code: 'validation_failed', errors: [expect.objectContaining({ field: 'payment_date' })] }),
    );
    expect(() => assertAfterLockDate(held, '2026-04-01', 'payment_date', 'a payment')).not.toThrow();
  });

  it('given settings read without their lock, fails as a bug whatever the date: such a reading could miss a lock date committed meanwhile', () => {
    const unheld = settingsReading(locked);
    let thrown: unknown;
    try {
      assertAfterLockDate(unheld, '2026-04-01', 'payment_date', 'a payment');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).not.toBeInstanceOf(AppError);
    expect((thrown as Error).message).toMatch(/read without their lock/);
  });
});
