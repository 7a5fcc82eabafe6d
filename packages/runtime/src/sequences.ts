import type { Knex } from './db';

/** Where a series' numbers are kept once used: the documents' table and its number column. */
export interface NumberedTable {
  table: string;
  column: string;
}

/**
 * Gapless document numbers per organization and series (INV-, QUO- ...). The counter row stays
 * locked until the caller's transaction ends, so concurrent creates queue up and a rollback gives
 * its number back. Numbers a client supplied by hand are skipped, never reused.
 *
 * One statement advances the counter, writes the candidate and says whether a document already
 * holds it: the counter's lock is held from here to the commit, and every round trip inside that
 * window is paid by every create of the series queued behind it (docs/performance.md, twelfth pass).
 */
export async function nextDocumentNumber(
  trx: Knex.Transaction,
  orgId: number,
  prefix: string,
  numbered: NumberedTable,
  width = 5,
): Promise<string> {
  for (;;) {
    const { rows } = await trx.raw<{ rows: Array<{ candidate: string; taken: boolean }> }>(NEXT_NUMBER_SQL, [
      orgId,
      prefix,
      prefix,
      width,
      numbered.table,
      orgId,
      numbered.column,
    ]);
    // One counter row inserted or updated, so exactly one row.
    const { candidate, taken } = rows[0] as { candidate: string; taken: boolean };
    if (!taken) return candidate;
  }
}

/** The counter's next value as the series writes it (the prefix, then the value zero-padded to the width), and whether it is in use. */
const NEXT_NUMBER_SQL = `with advanced as (
    insert into document_sequences (org_id, series, last_value) values (?, ?, 1)
    on conflict (org_id, series) do update set last_value = document_sequences.last_value + 1
    returning last_value::text as digits),
  formatted as (
    select ? || repeat('0', greatest(?::int - length(digits), 0)) || digits as candidate from advanced)
  select candidate, exists (select 1 from ?? d where d.org_id = ? and d.?? = candidate) as taken from formatted`;

/** True for PostgreSQL's unique_violation, optionally on one named constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
