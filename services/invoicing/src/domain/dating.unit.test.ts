import { datedBeforeRefusal } from './dating';

describe('dates run forward', () => {
  it('refuses a date before the latest thing reversed or settled, naming the field and that thing', () => {
    expect(
      datedBeforeRefusal('allocation_date', '2026-05-09', 'an allocation', [
        { label: 'PAY-3', date: '2026-05-01' },
        { label: 'INV-00007', date: '2026-05-10' },
      ]),
    ).toEqual({
      code: 'validation_failed',
      field: 'allocation_date',
      message: 'an allocation dated 2026-05-09 would come before INV-00007, dated 2026-05-10: date it on or after 2026-05-10',
    });
  });

  it('takes the same day and any later one', () => {
    expect(datedBeforeRefusal('refund_date', '2026-05-10', 'a refund', [{ label: 'PAY-1', date: '2026-05-10' }])).toBeNull();
    expect(datedBeforeRefusal('refund_date', '2027-01-01', 'a refund', [{ label: 'PAY-1', date: '2026-05-10' }])).toBeNull();
    expect(datedBeforeRefusal('void_date', '2026-01-01', 'a void', [])).toBeNull();
  });
});
