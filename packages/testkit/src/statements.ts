import type { Knex } from '@bo/runtime';

/**
 * Runs `work` in a transaction and gives back the SQL statements that transaction sent (each one
 * round trip), for tests that prove a batch costs a few statements, not a few per item. Only the
 * transaction's own statements count: the service's outbox publisher and consumers share the
 * knex instance and may run at any moment (a CI run once counted the publisher's update).
 */
export async function statementsIn(db: Knex, work: (trx: Knex.Transaction) => Promise<unknown>): Promise<string[]> {
  const statements: string[] = [];
  await db.transaction(async (trx) => {
    const count = (q: { sql: string }) => statements.push(q.sql);
    trx.on('query', count);
    try {
      await work(trx);
    } finally {
      trx.off('query', count);
    }
  });
  return statements;
}
