import { generateTooEarly, addDays, daysBetween, firstRunIndexNotBefore, runDate } from './recurrence';

describe('recurring run dates', () => {
  it('clamps month ends and returns to the day of the start date', () => {
    const dates = [0, 1, 2, 3, 4].map((k) => runDate('2025-01-31', 'monthly', k));
    expect(dates).toEqual(['2025-01-31', '2025-02-28', '2025-03-31', '2025-04-30', '2025-05-31']);
  });

  it('gives Feb 29 in leap years and Feb 28 otherwise', () => {
    expect(runDate('2024-01-31', 'monthly', 1)).toBe('2024-02-29');
    expect(runDate('2024-02-29', 'yearly', 1)).toBe('2025-02-28');
    expect(runDate('2024-02-29', 'yearly', 4)).toBe('2028-02-29');
    expect(runDate('2100-01-31', 'monthly', 1)).toBe('2100-02-28');
    expect(runDate('2000-01-31', 'monthly', 1)).toBe('2000-02-29');
  });

  it('steps quarters across year ends', () => {
    expect([0, 1, 2, 3, 4].map((k) => runDate('2024-11-30', 'quarterly', k))).toEqual([
      '2024-11-30',
      '2025-02-28',
      '2025-05-30',
      '2025-08-30',
      '2025-11-30',
    ]);
  });

  it('steps days and weeks across month, year and leap days', () => {
    expect(runDate('2024-02-28', 'daily', 1)).toBe('2024-02-29');
    expect(runDate('2024-02-28', 'daily', 2)).toBe('2024-03-01');
    expect(runDate('2024-12-25', 'weekly', 1)).toBe('2025-01-01');
    expect(runDate('2025-01-31', 'weekly', 52)).toBe('2026-01-30');
  });

  it('finds the first run date not in the past for a resume', () => {
    expect(firstRunIndexNotBefore('2025-01-31', 'monthly', 0, '2025-04-15')).toBe(3);
    expect(runDate('2025-01-31', 'monthly', 3)).toBe('2025-04-30');
    expect(firstRunIndexNotBefore('2025-01-31', 'monthly', 0, '2025-04-30')).toBe(3);
    // Never goes back before the index it was already at.
    expect(firstRunIndexNotBefore('2025-01-31', 'monthly', 5, '2025-01-01')).toBe(5);
  });

  it('counts and adds days', () => {
    expect(daysBetween('2024-02-01', '2024-03-01')).toBe(29);
    expect(daysBetween('2025-03-01', '2025-02-01')).toBe(-28);
    expect(addDays('2024-02-28', 30)).toBe('2024-03-29');
    // Counting back works too (used to place a start date in the past).
    expect(runDate('2025-01-31', 'monthly', -2)).toBe('2024-11-30');
  });
});

describe('manual generation ahead of the schedule', () => {
  it('bills the next period once the current one has begun, never two periods ahead', () => {
    // Contract from Jan 31: the parent bills January; the first child (index 1) bills from Feb 28.
    expect(generateTooEarly('2100-01-31', 'monthly', 1, '2100-01-31')).toBeNull();
    expect(generateTooEarly('2100-01-31', 'monthly', 1, '2100-01-30')).toBe('2100-01-31');
    // The child of March (index 2) only once February's period has begun.
    expect(generateTooEarly('2100-01-31', 'monthly', 2, '2100-02-27')).toBe('2100-02-28');
    expect(generateTooEarly('2100-01-31', 'monthly', 2, '2100-02-28')).toBeNull();
  });
});
