/**
 * The retry schedule of a failed event, the same on both transports: the base (EVENT_RETRY_BASE_MS)
 * doubling with each failed attempt, never more than five minutes.
 */
export const RETRY_CAP_MS = 300_000;
export const DEFAULT_RETRY_BASE_MS = 1000;
export const DEFAULT_MAX_ATTEMPTS = 8;

/** How long the next attempt waits after attempt `failedAttempt` (1 for the first delivery) failed. */
export function retryDelayMs(failedAttempt: number, baseMs = DEFAULT_RETRY_BASE_MS): number {
  return Math.min(Math.max(1, baseMs) * 2 ** (failedAttempt - 1), RETRY_CAP_MS);
}

/** Every delay retryDelayMs can give for this base, shortest first: base, 2 x base ... below the cap, then the cap. */
export function retryTiers(baseMs = DEFAULT_RETRY_BASE_MS): number[] {
  const tiers: number[] = [];
  for (let delay = Math.max(1, baseMs); delay < RETRY_CAP_MS; delay *= 2) tiers.push(delay);
  tiers.push(RETRY_CAP_MS);
  return tiers;
}
