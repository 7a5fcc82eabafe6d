import type { Logger } from './logger';

/** SQLSTATE lock_not_available: a `lock_timeout` ran out (runtime-migrations' ALTERs of live tables set one). */
export const LOCK_NOT_AVAILABLE = '55P03';

/** Waits before each new start-up attempt after a lock timeout: about half a minute in all. */
export const LOCK_RETRY_DELAYS_MS: readonly number[] = [1000, 2000, 4000, 8000, 16_000];

/**
 * Runs a process's start, and again after a back-off while it fails on a lock timeout. Only a
 * migration sets one, and migrations run first and roll back whole, so nothing else was started by
 * the failed attempt. Each attempt may find a moment between the running instances' transactions.
 */
export async function startRetryingLockTimeouts<T>(
  start: () => Promise<T>,
  log: Pick<Logger, 'warn'>,
  delaysMs: readonly number[] = LOCK_RETRY_DELAYS_MS,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if ((err as { code?: unknown } | null)?.code !== LOCK_NOT_AVAILABLE) throw err;
      const delayMs = delaysMs[attempt - 1];
      if (delayMs === undefined) {
        throw new Error(
          `Start-up gave up after ${attempt} attempts: a migration could not take the lock of a table in use within its lock_timeout ` +
            '(transactions of running instances held it each time). Start again when the load is lower or the old instances have stopped.',
          { cause: err },
        );
      }
      log.warn({ err, attempt, delayMs }, 'a migration could not take its table lock in time (running instances hold it); starting again');
      await sleep(delayMs);
    }
  }
}
