import type { Knex } from './db';
import { clientOf } from './knex-driver';
import { deferEvents, flushDeferredEvents } from './outbox';

/**
 * One transaction whose nested `transaction()` calls do not become savepoints.
 *
 * A handler's own `trx.transaction(...)` inside a transaction the runtime opened costs two round
 * trips (SAVEPOINT, RELEASE) and a fresh knex instance, and almost always only groups statements
 * that commit or fail with the whole. So the work first runs flat: a nested call runs its callback
 * on the same transaction. A savepoint matters only when a nested callback throws and the work
 * goes on (catches it, retries, answers something else): then the flat run is rolled back and the
 * work runs again with real savepoints, so the outcome is exactly what it would have been. From
 * the moment a nested callback threw, the flat run's statements are refused, so it cannot act on
 * what the missing savepoint failed to undo. The work must be safe to run twice up to its commit:
 * everything it does to the database is rolled back in between.
 */
export async function inTransaction<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>, config?: Knex.TransactionConfig): Promise<T> {
  const state: FlatState = {};
  try {
    return await db.transaction(async (trx) => {
      const flat = flatView(trx, state);
      // Its events join the statement that ends it (the recorded reply), else one insert at the end.
      deferEvents(flat);
      let result: T;
      try {
        result = await work(flat);
        if (!state.failed) await flushDeferredEvents(flat);
      } catch (err) {
        // The nested failure went straight out: rolling back the whole is what a savepoint would have led to.
        if (state.failed && err !== state.failure) throw new NeedsSavepoints();
        throw err;
      }
      if (state.failed) throw new NeedsSavepoints();
      return result;
    }, config);
  } catch (err) {
    if (!(err instanceof NeedsSavepoints)) throw err;
    return db.transaction(work, config);
  }
}

const flatPools = new WeakMap<Knex, Knex>();

/**
 * The pool as a write that opens its own transactions sees it: each `transaction(callback)` runs
 * through inTransaction, so the transactions nested in it need no savepoint either.
 */
export function withFlatTransactions(db: Knex): Knex {
  let pool = flatPools.get(db);
  if (!pool) {
    const transaction = (container: unknown, config?: Knex.TransactionConfig): Promise<unknown> =>
      typeof container === 'function'
        ? inTransaction(db, container as (trx: Knex.Transaction) => Promise<unknown>, config)
        : (db.transaction(container as undefined, config) as Promise<unknown>);
    pool = new Proxy(db, {
      get: (target, prop): unknown => (prop === 'transaction' ? transaction : Reflect.get(target, prop, target)),
    });
    flatPools.set(db, pool);
  }
  return pool;
}

interface FlatState {
  /** A nested callback threw: from then on the flat run is abandoned. */
  failed?: boolean;
  /** What it threw. */
  failure?: unknown;
}

class NeedsSavepoints extends Error {
  constructor() {
    super('a nested transaction failed and the work went on: run again with savepoints');
  }
}

class FlatRunAbandoned extends Error {
  constructor() {
    super('statement refused: a nested transaction failed in a flat run, which runs again with savepoints');
  }
}

/** The transaction as the work sees it: itself, except that `transaction()` and `savepoint()` nest flat. */
function flatView(trx: Knex.Transaction, state: FlatState): Knex.Transaction {
  const client = clientOf(trx);
  const query = client.query;
  client.query = function (conn, obj) {
    // Builder and raw statements come as objects; the transaction's own BEGIN/COMMIT/ROLLBACK as strings.
    if (state.failed && typeof obj !== 'string') return Promise.reject(new FlatRunAbandoned());
    return query.call(this, conn, obj);
  };
  const nested = async (container: unknown, config?: unknown): Promise<unknown> => {
    if (typeof container !== 'function') return trx.transaction(container as undefined, config as Knex.TransactionConfig);
    try {
      return await (container as (t: Knex.Transaction) => unknown)(view);
    } catch (err) {
      if (!state.failed) {
        state.failed = true;
        state.failure = err;
      }
      throw err;
    }
  };
  const view: Knex.Transaction = new Proxy(trx, {
    get(target, prop): unknown {
      if (prop === 'transaction' || prop === 'savepoint') return nested;
      return Reflect.get(target, prop, target);
    },
  });
  return view;
}
