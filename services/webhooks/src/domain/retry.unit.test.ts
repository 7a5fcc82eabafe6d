import { DEFAULT_RETRY_SCHEDULE_MS, nextAttemptDelay, parseSchedule } from './retry';

describe('retry schedule', () => {
  it('retries for at least 24 hours by default, whatever the jitter draws', () => {
    const total = (random: number) =>
      DEFAULT_RETRY_SCHEDULE_MS.reduce((sum, _, i) => sum + (nextAttemptDelay(DEFAULT_RETRY_SCHEDULE_MS, i + 1, random) ?? 0), 0);
    expect(total(0)).toBeGreaterThanOrEqual(24 * 3600_000);
    expect(total(0.999)).toBeLessThanOrEqual(1.2 * total(0));
  });

  it('lengthens each wait by up to a fifth and ends after the last step', () => {
    expect(nextAttemptDelay([1000, 2000], 1, 0)).toBe(1000);
    expect(nextAttemptDelay([1000, 2000], 2, 1)).toBe(2400);
    expect(nextAttemptDelay([1000, 2000], 3, 0.5)).toBeUndefined();
  });

  it('reads a schedule from its setting, or refuses it', () => {
    expect(parseSchedule('100, 200,400')).toEqual([100, 200, 400]);
    expect(parseSchedule('100,-1')).toBeUndefined();
    expect(parseSchedule('')).toBeUndefined();
  });
});
