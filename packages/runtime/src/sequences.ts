import { randomUUID } from 'node:crypto';
import type { Knex } from './db';

/** Where a series' numbers are kept once used: the documents' table and its number column. */
export interface NumberedTable {
  table: string;
  column: string;
}

/**
 * What a document's number column holds between its insert and `numberDocument`, inside its
 * transaction: never committed, since the transaction numbers the document before its last
 * statement. Unique, so that documents inserted at once do not wait on each other in the number's
 * unique index. `~` starts no series prefix.
 */
export function pendingNumber(): string {
  return `~${randomUUID()}`;
}

/**
 * `count` rows numbered 1, 2, … (column `n`) as a FROM item, for a load that draws ids: what
 * `generate_series(1, count)` gives, but planned once per connection. Of a prepared statement
 * PostgreSQL plans each of the first five calls for their values, then keeps a generic plan unless
 * those looked cheaper; it guesses a generate_series of a parameter at 1,000 rows, so every plan for
 * the values looks cheaper and the statement is planned at every call (0.15 ms of create invoice's
 * read). An array of `count` zeros unnested is guessed at 10 rows, near enough.
 */
export function numberedRows(count: string): string {
  return `unnest(array_fill(0, array[${count}])) with ordinality as numbered(zero, n)`;
}

/**
 * Gives the document (inserted in this transaction with `pendingNumber()`) the next gapless number
 * of its organization's series (INV-, QUO- ...), and returns it. The counter row stays locked until
 * the transaction ends, so concurrent creates queue up and a rollback gives its number back.
 * Numbers a client supplied by hand are skipped, never reused.
 *
 * Last, and in one statement: the counter is locked from here to the commit, and every round trip
 * inside that window is paid by every create of the series queued behind it. So the document and
 * its lines are written first, and this statement advances the counter, writes the candidate, says
 * whether a document already holds it and, if none does, writes it into the document (under 32
 * concurrent invoice creates, the counter's holder spent most of the window waiting for its process
 * to send the next statement: measured with `npm run bench`).
 *
 * A candidate typed by hand into another document at the same moment (not yet committed when this
 * statement looked) fails the update on the unique index once that one commits; that is answered as
 * a transient conflict, and the runtime runs the whole write again.
 */
export async function numberDocument(
  trx: Knex.Transaction,
  orgId: number,
  prefix: string,
  numbered: NumberedTable & { id: number },
  width = 5,
): Promise<string> {
  for (;;) {
    let rows: Array<{ candidate: string; taken: boolean; numbered: number }>;
    try {
      const next = nextNumberCtes(orgId, prefix, numbered, { width });
      ({ rows } = await trx.raw<{ rows: typeof rows }>(
        `with ${next.sql},
           written as (update ?? as doc set ?? = c.number from candidate c where doc.id = ? and doc.org_id = ? and not c.taken returning 1)
         select number as candidate, taken, (select count(*) from written)::int as numbered from candidate`,
        [...next.bindings, numbered.table, numbered.column, numbered.id, orgId],
      ));
    } catch (err) {
      if (isUniqueViolation(err)) throw new NumberRace(prefix);
      throw err;
    }
    // One counter row inserted or updated, so exactly one row.
    const { candidate, taken, numbered: written } = rows[0] as (typeof rows)[number];
    if (taken) continue;
    if (Number(written) !== 1) throw new Error(`${numbered.table} ${numbered.id} is not in this transaction to be numbered`);
    return candidate;
  }
}

/**
 * The CTEs that take the next number of a series inside a larger statement (a document's store,
 * which writes the document with it): `advanced` moves the counter on, locking its row until the
 * transaction ends, and `candidate` answers the number as the series writes it (`number`) and whether
 * a document already holds it (`taken`: a number typed by hand; the document is then stored with
 * `pendingNumber()` and numbered by numberDocument). `from` names what the advance is conditioned on
 * (e.g. `fence where not fence.fenced`): the counter moves only when the document is written. A
 * candidate typed by hand into a concurrent document fails the store on the number's unique index:
 * answer it with `new NumberRace(prefix)`, a transient conflict, as numberDocument does.
 */
export function nextNumberCtes(
  orgId: number,
  prefix: string,
  numbered: NumberedTable,
  opts: { from?: string; width?: number } = {},
): { sql: string; bindings: Knex.RawBinding[] } {
  const steps = nextNumberSteps(orgId, prefix, numbered, opts);
  const candidate = steps.candidate('advanced');
  return {
    sql: `advanced as (${steps.advance.sql}), candidate as (${candidate.sql})`,
    bindings: [...steps.advance.bindings, ...candidate.bindings],
  };
}

/**
 * nextNumberCtes' two steps as SQL for a caller that names them itself (a one-statement write's
 * parts): `advance` moves the counter on (answering `digits`), `candidate` reads the number and
 * whether it is taken from the step its caller named `advanced`.
 */
export function nextNumberSteps(
  orgId: number,
  prefix: string,
  numbered: NumberedTable,
  opts: { from?: string; width?: number } = {},
): {
  advance: { sql: string; bindings: Knex.RawBinding[] };
  candidate: (advanced: string) => { sql: string; bindings: Knex.RawBinding[] };
} {
  return {
    advance: {
      sql: `insert into document_sequences as s (org_id, series, last_value) select ?, ?, 1 ${opts.from ? `from ${opts.from}` : ''}
        on conflict (org_id, series) do update set last_value = s.last_value + 1
        returning last_value::text as digits`,
      bindings: [orgId, prefix],
    },
    candidate: (advanced) => ({
      sql: `select f.number, exists (select 1 from ?? d where d.org_id = ? and d.?? = f.number) as taken
        from (select ?::text || repeat('0', greatest(?::int - length(digits), 0)) || digits as number from ${advanced}) f`,
      bindings: [numbered.table, orgId, numbered.column, prefix, opts.width ?? 5],
    }),
  };
}

/**
 * The number a document was about to take went, in the meantime, to a document whose number was
 * typed by hand: a conflict between two transactions, as PostgreSQL's serialization failures are,
 * so it carries their SQLSTATE and the runtime runs the write again (isTransientConflict).
 */
export class NumberRace extends Error {
  readonly code = '40001';
  constructor(prefix: string) {
    super(`the next ${prefix} number was typed by hand into a concurrent document; run the write again`);
  }
}

/** True for PostgreSQL's unique_violation, optionally on one named constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
