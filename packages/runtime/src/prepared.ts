import PgDialect from 'knex/lib/dialects/postgres/index.js';
import { isStalePlan } from './db-errors';

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
 * A statement prepared before a migration changed a table's columns fails once with "cached plan
 * must not change result type" (0A000) where it returns whole rows. Every connection of the process
 * then prepares every text afresh under new names (so the retry cannot meet another connection's
 * stale copy); outside a transaction the statement runs again at once, inside one the error is a
 * transient conflict (isTransientConflict), so the runtime runs the transaction again.
 */
export class PreparingPgClient extends PgDialect {
  override async _query(connection: PgConnection, obj: KnexQuery): ReturnType<PgDialect['_query']> {
    const id = obj.bindings?.length ? statementId(obj.sql) : undefined;
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

type KnexQuery = Parameters<PgDialect['_query']>[1];

interface PgConnection {
  /** Set by knex while the connection runs a transaction. */
  __knexTxId?: string;
}
