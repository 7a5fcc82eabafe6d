import { RETRY_CAP_MS, retryDelayMs, retryTiers } from './backoff';

describe('retry back-off', () => {
  it('doubles from the base up to five minutes', () => {
    expect([1, 2, 3, 8, 9, 10, 20].map((a) => retryDelayMs(a, 1000))).toEqual([
      1000,
      2000,
      4000,
      128_000,
      256_000,
      RETRY_CAP_MS,
      RETRY_CAP_MS,
    ]);
    expect(retryTiers(1000)).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000, 256_000, RETRY_CAP_MS]);
  });

  it('has a retry queue for every delay it can give, whatever the base', () => {
    for (const base of [1, 7, 50, 1000, 299_999, 300_000, 600_000]) {
      const tiers = retryTiers(base);
      for (let attempt = 1; attempt <= 100; attempt++) expect(tiers).toContain(retryDelayMs(attempt, base));
      expect(new Set(tiers).size).toBe(tiers.length);
    }
  });
});
