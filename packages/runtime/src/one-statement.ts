import type { EventDef, RpcReply } from '@bo/contracts';
import type { z } from 'zod';
import type { Knex, SqlStatement } from './db';
import { AppError } from './errors';
import { ALREADY_RECORDED_SQLSTATE, AlreadyRecorded, keyHeldSql, RECORDED_CHECK, recordedInsert, type OperationKey } from './idempotency';
import { isUniqueViolation } from './sequences';
import { outboxInsertFrom, publishStatementEvents, ridingMarks, statementEvents, type StorePart } from './outbox';

/**
 * A write whose whole transaction is its store (docs/adding-an-operation.md): it decides on nothing
 * stored, so it needs no load, no lock and no transaction of its own. Its rows, its events' outbox
 * rows and its key's record go to PostgreSQL as one statement, which commits alone, the floor of
 * a write: one statement, one round trip.
 *
 * Its key is held by the statement itself (`held`, as holdKey holds it in a transaction): a twin
 * arriving while it runs is answered 409, and one arriving after meets the record's insert, so the
 * whole statement fails and nothing of it stays; the runtime then answers the record.
 */
export interface OneStatementWrite {
  /**
   * An id its statement draws from `table`'s `column` sequence, for the row it inserts: the parts'
   * SQL reads it as `(select id from drawn)`, and the events and the reply carry FILLED_IN under the
   * name `key` where it goes.
   */
  draws?: { table: string; column: string; key: string };
  /**
   * JSON its statement writes (a record as a RETURNING clause of a part gives it): each `sql`, a
   * scalar subquery answering JSON text, replaces FILLED_IN under the name `key` in the events and
   * the reply.
   */
  fills?: ReadonlyArray<{ key: string; sql: string }>;
  /**
   * What must hold of its parts for the decision to stand, as a boolean over them (the row an update
   * names was there to update): when it does not, nothing of the statement stays, and the runtime
   * runs the write the usual way (`apply`), which answers what it finds.
   */
  expects?: string;
  parts: readonly StorePart[];
  events: ReadonlyArray<StatementEvent>;
  reply: Record<string, unknown>;
  /**
   * Called once the statement has committed (it stood, and was this request's, not a twin's record):
   * for work of this process its rows make ready now, as a transaction's commit hook would (a
   * dispatcher woken for deliveries it queued).
   */
  afterCommit?: () => void;
}

/** An event of a one-statement write (statementEvent makes it, typed by its contract). */
export interface StatementEvent {
  event: EventDef;
  orgId: number;
  data: Record<string, unknown>;
}

/** An event of a one-statement write, its data typed by the event's contract. */
export function statementEvent<E extends EventDef>(event: E, orgId: number, data: z.input<E['data']>): StatementEvent {
  return { event, orgId, data: data as Record<string, unknown> };
}

/**
 * Where a value the statement makes goes (an id it draws, a record it writes), until it makes it: no
 * JSON number a request or a row holds is this (it is below every id, amount and count), and it is
 * replaced only where it follows its key's name as JSON writes an object's member, never inside a
 * string, whose quotes JSON escapes.
 */
export const FILLED_IN = Number.MIN_SAFE_INTEGER;

/** FILLED_IN where a value of type T goes (a record its statement writes). */
export function filledIn<T>(): T {
  return FILLED_IN as unknown as T;
}

/**
 * What an optimistic `alone` decided on an unlocked read, or undefined when the decision refuses: a
 * refusal is judged again the usual way (`apply`), under the locks, where it is recorded.
 */
export function unlessRefused<P>(decide: () => P): P | undefined {
  try {
    return decide();
  } catch (err) {
    if (err instanceof AppError) return undefined;
    throw err;
  }
}

/**
 * What an optimistic `alone` loaded, or undefined when the load refuses (not found): that too is
 * judged again the usual way, where it is recorded. Any other failure is thrown.
 */
export async function loadedUnlessRefused<T>(load: Promise<T>): Promise<T | undefined> {
  try {
    return await load;
  } catch (err) {
    if (err instanceof AppError) return undefined;
    throw err;
  }
}

/** The function that fails a one-statement write whose `expects` did not hold (runtime migration 011), and its SQLSTATE. */
export const AS_DECIDED_CHECK = 'require_as_decided';
export const NOT_AS_DECIDED_SQLSTATE = 'BO412';

/**
 * Raised when a one-statement write's `expects` did not hold, or a unique index refused a row it
 * wrote: nothing of it stayed; run it the usual way.
 */
export class NotAsDecided extends Error {
  constructor() {
    super('what a one-statement write decided on was not there');
  }
}

/**
 * Runs a one-statement write: its statement, then the publication of its events. `reply` is the
 * answer as the key's record keeps it, `answer` what this request answers (they differ for a sealed
 * reply); both get what the statement fills in. Throws AlreadyRecorded when a live record of the key
 * stood in its way, NotAsDecided when its `expects` did not hold.
 */
export async function storeAlone(
  db: Knex,
  write: OneStatementWrite,
  recorded: { key: OperationKey; reply: RpcReply; claim?: string } | undefined,
  answer: RpcReply,
): Promise<RpcReply> {
  const { rows, envelopes, trace } = statementEvents(write.events);
  const fills = [...(write.draws ? [{ key: write.draws.key, sql: '(select id from drawn)::text' }] : []), ...(write.fills ?? [])];
  const token = (key: string) => `"${key}":${FILLED_IN}`;
  // JSON text with what the statement makes in place of the tokens, in SQL. A fill that answered
  // nothing leaves JSON null, so the statement still fails only where `expects` says.
  const filledInto = (text: string): SqlStatement => {
    let sql = '?::text';
    const bindings: unknown[] = [text];
    for (const f of fills) {
      sql = `replace(${sql}, ?, ? || coalesce(${f.sql}, 'null'))`;
      bindings.push(token(f.key), `"${f.key}":`);
    }
    return { sql, bindings: bindings as Knex.RawBinding[] };
  };

  const ctes: SqlStatement[] = [];
  // The key is held first: the record's insert reads `held`, and the main query reads the record
  // before PostgreSQL runs the parts no query reads, so a twin arriving while this waits (for a lock
  // its parts need) is answered 409 at once, as a transaction's holdKey answers it.
  if (recorded) {
    const held = keyHeldSql(recorded.key, recorded.claim);
    ctes.push({ sql: `held as (${held.sql})`, bindings: held.bindings });
  }
  if (write.draws)
    ctes.push({
      sql: `drawn as (select nextval(pg_get_serial_sequence(?, ?)) as id${recorded ? ' from held' : ''})`,
      bindings: [write.draws.table, write.draws.column],
    });
  write.parts.forEach((part, i) => ctes.push({ sql: `store${i + 1} as (${part.sql})`, bindings: part.bindings }));
  if (rows.length) {
    const events = filledInto(JSON.stringify(rows));
    const insert = outboxInsertFrom(events.sql, events.bindings);
    ctes.push({ sql: `events as (${insert.sql})`, bindings: insert.bindings });
  }
  if (recorded) {
    const reply = filledInto(JSON.stringify(recorded.reply));
    const insert = recordedInsert(
      recorded.key,
      recorded.reply.status,
      { sql: `(select ${reply.sql} from held)`, bindings: reply.bindings },
      recorded.claim,
    );
    ctes.push({ sql: `recorded as (${insert.sql})`, bindings: insert.bindings });
  }
  // Marks of events published earlier ride along; they go back to the relay if the statement fails.
  const marks = ridingMarks(db);
  if (marks) ctes.push(marks.cte);
  const outcome = [
    ...(write.expects ? [`${AS_DECIDED_CHECK}(${write.expects}) as as_decided`] : []),
    `json_build_array(${fills.map((f) => f.sql).join(', ')})::text as filled`,
  ];
  // Every CTE runs, read or not: PostgreSQL carries out each data-modifying one once, to its end.
  const sql = recorded
    ? `with ${ctes.map((c) => c.sql).join(', ')} select ${RECORDED_CHECK}(count(*)) as recorded, ${outcome.join(', ')} from recorded`
    : `with ${ctes.map((c) => c.sql).join(', ')} select ${outcome.join(', ')}`;
  let filled: unknown[];
  try {
    const {
      rows: [row],
    } = await db.raw<{ rows: Array<{ filled: string }> }>(
      sql,
      ctes.flatMap((c) => c.bindings),
    );
    filled = JSON.parse(row!.filled) as unknown[];
    marks?.kept();
  } catch (err) {
    marks?.giveBack();
    const code = (err as { code?: string }).code;
    if (code === ALREADY_RECORDED_SQLSTATE) throw new AlreadyRecorded();
    if (code === NOT_AS_DECIDED_SQLSTATE) throw new NotAsDecided();
    // A unique index met a row the decision could not see (written meanwhile): the usual way answers it.
    if (isUniqueViolation(err)) throw new NotAsDecided();
    throw err;
  }
  const fill = <T>(value: T): T => {
    if (!fills.length) return value;
    let text = JSON.stringify(value);
    // As the statement wrote them: each value's JSON text (an id's digits, a record) as it is.
    fills.forEach((f, i) => {
      const made = filled[i];
      text = text.replaceAll(token(f.key), `"${f.key}":${typeof made === 'string' ? made : 'null'}`);
    });
    return JSON.parse(text) as T;
  };
  publishStatementEvents(db, fill(envelopes), trace);
  return fill(answer);
}
