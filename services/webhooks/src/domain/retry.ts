/**
 * When a failed delivery is tried again: `schedule[n]` is the wait after the (n+1)-th attempt in a
 * row that failed, lengthened by up to `jitter` of itself (never shortened, so the schedule's total
 * is a floor: the default sums to about 27.6 hours, past the 24 promised). Past the schedule's end
 * the delivery has failed for good (until someone redelivers it).
 */
export function nextAttemptDelay(
  schedule: readonly number[],
  failedInARow: number,
  random: number = Math.random(),
  jitter = 0.2,
): number | undefined {
  const base = schedule[failedInARow - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 + jitter * random));
}

/** Immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: 8 attempts over about 27.6 hours (Svix's schedule). */
export const DEFAULT_RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/** A schedule as `WEBHOOKS_RETRY_SCHEDULE_MS` writes it: milliseconds, comma-separated. */
export function parseSchedule(text: string): number[] | undefined {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d{1,10}$/.test(p))) return undefined;
  return parts.map(Number);
}
