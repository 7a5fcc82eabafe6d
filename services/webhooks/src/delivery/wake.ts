import type { Knex } from '@bo/runtime';

/** The dispatchers running in this process: new work wakes them instead of waiting for their poll. */
const dispatchers = new Set<() => void>();

export function onWake(wake: () => void): () => void {
  dispatchers.add(wake);
  return () => dispatchers.delete(wake);
}

/** Wakes every dispatcher of the process: call it once what was queued is committed. */
export function wakeDispatchers(): void {
  dispatchers.forEach((wake) => wake());
}

/** Wakes every dispatcher of the process once the transaction committed (what it queued is visible then). */
export function wakeAfterCommit(trx: Knex.Transaction): void {
  const committed = (trx as Partial<Knex.Transaction>).executionPromise;
  if (!committed) return;
  committed.then(wakeDispatchers, () => undefined);
}
