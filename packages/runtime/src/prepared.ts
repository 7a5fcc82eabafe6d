import { isDbUnavailable, isStalePlan } from './db-errors';
import { KNEX_BEGIN, KNEX_COMMIT, KNEX_ROLLBACK, PgDialect, type KnexConnection, type KnexQuery } from './knex-driver';

/**
 * knex's PostgreSQL client with named prepared statements: each connection parses, analyses and
 * plans a statement text once, and afterwards only binds and runs it. Under write load a third of
 * PostgreSQL's CPU went to parsing and planning the same few dozen statements again on every call
 * (perf, create partner at 32 connections; docs/performance.md).
 *
 * Only statements with parameters are named (BEGIN, COMMIT and other plain texts stay on the
 * simple protocol), and at most MAX_NAMED distinct texts per process, so a statement whose text
 * varies (an IN list of any length) cannot grow every connection's cache without bound: texts past
 * the cap run unnamed, as before.
 *
 * A transaction's BEGIN is not sent on its own: knex is answered at once, and the BEGIN leaves in the
 * same write as the transaction's first statement, on a connection that pipelines (createDb), so
 * every transaction saves a round trip (a write's was BEGIN, its statements, COMMIT). Should BEGIN
 * fail, the statement fails with it: BEGIN fails only on a broken connection or one in an aborted
 * transaction, where the statement behind it fails too.
 *
 * A statement may go out with its transaction's BEGIN (`withBegin`): the runtime's hold on an
 * operation key (idempotency.ts), taken first in the transaction and costing it no round trip.
 * knex is answered at once; the statement leaves after BEGIN in the write of the transaction's first
 * statement, and fails that statement when it fails (PostgreSQL aborts the transaction at the first
 * error, so the statement behind it fails too). It has no bindings: it runs on the simple protocol.
 *
 * A transaction's last statement may carry the transaction's COMMIT with it (`commitAhead`): both
 * leave in one write, and knex's own COMMIT that follows is answered from it (measured with
 * `npm run bench`). The statement must be the work's last and must fail whenever the work must not
 * commit (the recorded reply raises on a twin's record): a COMMIT after a failed statement rolls the
 * transaction back. The statement's answer is its own failure first, then the COMMIT's, so the
 * caller sees a transaction that did not commit exactly as it would with its COMMIT sent after it.
 *
 * A statement prepared before a migration changed a table's columns fails once with "cached plan
 * must not change result type" (0A000) where it returns whole rows. Every connection of the process
 * then prepares every text afresh under new names (so the retry cannot meet another connection's
 * stale copy); outside a transaction the statement runs again at once, inside one the error is a
 * transient conflict (isTransientConflict), so the runtime runs the transaction again.
 *
 * With `preparedStatements: false` in knex's configuration (DB_PREPARED_STATEMENTS=off, createDb)
 * every statement goes out unnamed: parsed and planned on each call, but bound to no server
 * connection. That is what a pooler in transaction mode needs when it keeps no prepared statements
 * (PgBouncer before 1.21, Debian 12's 1.18 among them): it hands each transaction whichever server
 * connection is free, where a statement named on another one does not exist. BEGIN and COMMIT still
 * go out with the statements beside them, which a pooler passes on as they come.
 */
export class PreparingPgClient extends PgDialect {
  override async _query(connection: PgConnection, obj: KnexQuery): ReturnType<PgDialect['_query']> {
    try {
      return await this.run(connection, obj);
    } catch (err) {
      // A connection the server ended (terminated, shut down, reset) fails the statement before its
      // socket closes, and knex marks it unusable only when the socket does: given back before that,
      // the pool would hand the dead connection to the next statement. Marked now, the pool destroys it.
      if (isDbUnavailable(err)) connection.__knex__disposed = err;
      throw err;
    }
  }

  /** The statement, with whatever waits to go out with it: a pending BEGIN, statements sent with it, a COMMIT. */
  private async run(connection: PgConnection, obj: KnexQuery): ReturnType<PgDialect['_query']> {
    const commit = takeOption(obj, 'commitAhead');
    if (connection.__endedAhead) return endAhead(connection, obj);
    if (obj.sql === KNEX_BEGIN && connection.pipeline) {
      connection.__beginPending = true;
      return answered(obj, 'BEGIN');
    }
    if (takeOption(obj, 'withBegin')) {
      if (!connection.__beginPending || obj.bindings?.length) {
        throw new Error('withBegin is for a statement without bindings, first in a transaction on a pipelining connection');
      }
      (connection.__withBegin ??= []).push(obj.sql);
      return answered(obj, 'SELECT');
    }
    const begin = connection.__beginPending === true;
    const withBegin = connection.__withBegin ?? [];
    connection.__beginPending = false;
    connection.__withBegin = undefined;
    // A transaction that ran nothing has nothing to end (what went with its BEGIN was never sent).
    if (begin && obj.sql === KNEX_COMMIT) return answered(obj, 'COMMIT');
    if (begin && obj.sql === KNEX_ROLLBACK) return answered(obj, 'ROLLBACK');
    if (!begin && !commit) return this.statement(connection, obj);
    if (commit && (!connection.pipeline || connection.__knexTxId === undefined)) {
      throw new Error('commitAhead is for the last statement of a transaction on a pipelining connection');
    }
    // The pending BEGIN, the statement and the COMMIT leave in one write, each answered in turn.
    const stream = connection.connection?.stream;
    stream?.cork();
    let begun: Promise<unknown> | undefined;
    let sentWith: Promise<unknown[]> | undefined;
    let ran: ReturnType<PgDialect['_query']>;
    let committed: Promise<unknown> | undefined;
    try {
      if (begin) begun = connection.query(KNEX_BEGIN);
      if (withBegin.length) sentWith = Promise.all(withBegin.map((sql) => connection.query(sql)));
      ran = this.statement(connection, obj);
      if (commit) committed = connection.query(KNEX_COMMIT);
    } finally {
      stream?.uncork();
    }
    const [began, went, statement, ended] = await Promise.allSettled([begun, sentWith, ran, committed]);
    if (commit) connection.__endedAhead = ended as PromiseSettledResult<PgResult>;
    if (began.status === 'rejected') throw began.reason;
    if (went.status === 'rejected') throw went.reason;
    if (statement.status === 'rejected') throw statement.reason;
    if (ended.status === 'rejected') throw ended.reason;
    // After a statement that succeeded, PostgreSQL answers COMMIT with COMMIT or an error.
    if (commit && (ended.value as PgResult).command !== 'COMMIT') throw new Error('the transaction did not commit');
    return statement.value;
  }

  /** False when knex's configuration turned named statements off (createDb's `preparedStatements`). */
  private get namesStatements(): boolean {
    return (this as unknown as { config: { preparedStatements?: boolean } }).config.preparedStatements !== false;
  }

  /** A text already numbered (runStatement's) has no `?` to renumber: it is not scanned again on every call. */
  override positionBindings(sql: string): string {
    return sql.includes('?') ? super.positionBindings(sql) : sql;
  }

  override releaseConnection(connection: PgConnection): Promise<unknown> {
    // Released by a transaction that ended without a statement: its BEGIN was never sent.
    connection.__beginPending = false;
    connection.__withBegin = undefined;
    connection.__endedAhead = undefined;
    return super.releaseConnection(connection);
  }

  private async statement(connection: PgConnection, obj: KnexQuery): ReturnType<PgDialect['_query']> {
    const id = obj.bindings?.length && this.namesStatements ? statementId(obj.sql) : undefined;
    if (id === undefined) return super._query(connection, obj);
    const named = () => {
      obj.options = { ...obj.options, name: `bo${id}_${generation}` };
      return super._query(connection, obj);
    };
    try {
      return await named();
    } catch (err) {
      if (!isStalePlan(err)) throw err;
      generation++;
      if (connection.__knexTxId === undefined) return named();
      throw err;
    }
  }
}

/** The option that makes a statement carry its transaction's COMMIT (see PreparingPgClient). */
export const COMMIT_AHEAD = { commitAhead: true } as const;

/** The option that sends a statement with its transaction's BEGIN (see PreparingPgClient). */
export const WITH_BEGIN = { withBegin: true } as const;

/** Whether one of the runtime's own options is set on the statement; it is not passed on to node-postgres. */
function takeOption(obj: KnexQuery, name: 'commitAhead' | 'withBegin'): boolean {
  const options = obj.options;
  if (!options?.[name]) return false;
  const { [name]: _taken, ...rest } = options;
  obj.options = rest;
  return true;
}

/**
 * knex ending a transaction whose COMMIT already went out with its last statement. Its COMMIT is
 * answered with how that one ended; a ROLLBACK is answered as done when the transaction did not
 * commit. A ROLLBACK after it did commit, or any statement, would mean the work went on after what
 * it declared its last statement: a bug, refused loudly rather than answered as if it were undone.
 */
function endAhead(connection: PgConnection, obj: KnexQuery): KnexQuery {
  const ended = connection.__endedAhead as PromiseSettledResult<PgResult>;
  connection.__endedAhead = undefined;
  const committed = ended.status === 'fulfilled' && ended.value.command === 'COMMIT';
  if (obj.sql === KNEX_COMMIT) {
    if (committed) return answered(obj, 'COMMIT');
    throw ended.status === 'rejected' ? ended.reason : new Error('the transaction did not commit');
  }
  if (obj.sql === KNEX_ROLLBACK && !committed) return answered(obj, 'ROLLBACK');
  throw new Error(`${obj.sql.slice(0, 40)} after the transaction's COMMIT went out with its last statement`);
}

/** The statement as knex sees it once run, for one answered without a round trip. */
function answered(obj: KnexQuery, command: string): KnexQuery {
  obj.response = { command, rowCount: null, rows: [], fields: [] };
  return obj;
}

/** The most distinct statement texts one process names. */
const MAX_NAMED = 500;

const ids = new Map<string, number>();

function statementId(sql: string): number | undefined {
  let id = ids.get(sql);
  if (id === undefined && ids.size < MAX_NAMED) {
    id = ids.size + 1;
    ids.set(sql, id);
  }
  return id;
}

/** Bumped when a migration made prepared statements stale: the names of every text change with it. */
let generation = 0;

/** A connection as this client uses it: knex's and node-postgres's fields, and the client's own. */
interface PgConnection extends KnexConnection {
  /** knex began a transaction whose BEGIN goes out with its first statement. */
  __beginPending?: boolean;
  /** Statements that go out right after that BEGIN (WITH_BEGIN). */
  __withBegin?: string[];
  /** How the COMMIT sent with the transaction's last statement ended, until knex ends the transaction. */
  __endedAhead?: PromiseSettledResult<PgResult>;
}

/** What node-postgres answers a statement with, as far as ending a transaction looks at it. */
interface PgResult {
  command: string;
}
