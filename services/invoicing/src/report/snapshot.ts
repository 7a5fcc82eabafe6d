import type { Knex } from '@bo/runtime';

/**
 * Runs a report's reads in one snapshot (a read-only repeatable-read transaction) with PostgreSQL's
 * JIT compilation off. A report reads a few hundred rows by index, but over a large history the
 * planner overestimates what its filters keep (a payment's credit left, `amount > allocated +
 * refunded`, is a guess), the plan's cost passes `jit_above_cost`, and compiling the plan took 8.5 s
 * of a 9.2 s aged report at a million journal lines (docs/performance.md "Reports at scale").
 */
export function reportSnapshot<T>(db: Knex, read: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(
    async (trx) => {
      await trx.raw('set local jit = off');
      return read(trx);
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}
