import type { Knex } from './db';
import { clientOf, type KnexQuery } from './knex-driver';

type StatementQuery = KnexQuery & { method: 'raw'; __knexQueryUid: string };

let queries = 0;

/**
 * A fixed statement text with `$n` parameters (positionalText), run on the connection knex would
 * use for `db` (the pool's, or the transaction's) without knex's raw formatter or runner. For a
 * 3 KB text those rewrote the text twice on every call (placeholders scanned, then renumbered) and
 * made the prepared-statement cache hash a new string (docs/performance.md, "Why the code is shaped
 * so"). The statement still goes through the
 * PreparingPgClient (named, pipelined) and still emits knex's query events, so SQL spans and
 * statement counts see it as they see any other.
 */
export async function runStatement<Row>(db: Knex, text: string, values: readonly unknown[]): Promise<Row[]> {
  const client = clientOf(db);
  const connection = await client.acquireConnection();
  try {
    const query: StatementQuery = { method: 'raw', sql: text, bindings: values, options: {}, __knexQueryUid: `s${++queries}` };
    const done = await client.query(connection, query);
    client.emit('query-response', done.response, query);
    return (done.response as { rows: Row[] }).rows;
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * A text with knex's `?` placeholders as runStatement takes it, with `$1`, `$2`… (done once per
 * text, not per call). A literal `?` left in it would be numbered again as the text runs: refused.
 */
export function positionalText(db: Knex, text: string): string {
  const positional = clientOf(db).positionBindings(text);
  if (positional.includes('?')) throw new Error(`A statement for runStatement may hold no literal "?": ${text.slice(0, 80)}`);
  return positional;
}
