/**
 * Polling for tests: work that happens after a reply (an outbox relay, a bus consumer, a scheduled job) is
 * awaited by retrying a check until it holds, never by sleeping a guessed time. One copy for every test suite.
 */
export type PollOptions = {
  /** How long the check may keep failing before the test fails (default 10 s). */
  timeoutMs?: number;
  /** The pause between two tries (default 50 ms). */
  intervalMs?: number;
};

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Retries `check` until it returns without throwing, and gives back what it returned. Past the timeout the
 * last error is thrown as is, so a failed `expect` inside still shows its diff.
 */
export async function eventually<T>(check: () => T | Promise<T>, { timeoutMs = 10_000, intervalMs = 50 }: PollOptions = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await pause(intervalMs);
    }
  }
}

/** Polls `predicate` until it is true; past the timeout fails with an error naming the timeout. */
export async function waitUntil(
  predicate: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, intervalMs = 50 }: PollOptions = {},
): Promise<void> {
  await eventually(
    async () => {
      if (!(await predicate())) throw new Error(`condition not met within ${timeoutMs} ms`);
    },
    { timeoutMs, intervalMs },
  );
}
