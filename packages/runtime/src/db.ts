import knexFactory, { type Knex } from 'knex';
import { installTypeParsers } from './pg-types';
import { PreparingPgClient } from './prepared';

export type { Knex };

installTypeParsers();

/** One SQL statement with its bindings in order (knex raw: `?` a value, `??` an identifier). */
export interface SqlStatement {
  sql: string;
  bindings: Knex.RawBinding[];
}

export interface Migration {
  name: string;
  up(trx: Knex.Transaction, schema: string): Promise<void>;
}

export interface DbOptions {
  /**
   * Named prepared statements (DB_PREPARED_STATEMENTS, default on). Off for a pooler in transaction
   * mode that keeps none, such as PgBouncer before 1.21 (prepared.ts).
   */
  preparedStatements?: boolean;
}

/** The pool options a process's settings give. */
export function dbOptions(config: { DB_PREPARED_STATEMENTS: 'on' | 'off' }): DbOptions {
  return { preparedStatements: config.DB_PREPARED_STATEMENTS === 'on' };
}

/**
 * A pool of connections whose search_path is the schema (then public). The search path is session
 * state, set once per connection: behind a pooler in transaction mode each service needs a pool of
 * its own whose server connections have it set (PgBouncer: one database entry per service with a
 * `connect_query`), see docs/scaling.md.
 */
export function createDb(url: string, schema: string, poolMax = 10, opts: DbOptions = {}): Knex {
  // Pipelining (node-postgres 8.23) lets a transaction's BEGIN go out with its first statement (prepared.ts).
  const connection: Knex.PgConnectionConfig & { pipeline: boolean } = { connectionString: url, pipeline: true };
  return knexFactory({
    // knex's pg client, with named prepared statements unless turned off (prepared.ts).
    client: PreparingPgClient as unknown as typeof Knex.Client,
    ...({ preparedStatements: opts.preparedStatements !== false } as object),
    connection,
    searchPath: [schema, 'public'],
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: 10_000,
    // Knex prints pool errors with console.log; the failure reaches the caller, which logs it with context.
    log: { warn: noop, error: noop, deprecate: noop, debug: noop },
  });
}

/**
 * Creates the schema and applies pending migrations in one transaction under an advisory lock, so
 * several instances starting together apply each migration exactly once.
 */
export async function migrate(db: Knex, schema: string, migrations: readonly Migration[]): Promise<string[]> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`migrate:${schema}`]);
    await trx.raw('create schema if not exists ??', [schema]);
    await trx.raw(
      'create table if not exists ??.schema_migrations (name text primary key, applied_at timestamptz not null default now())',
      [schema],
    );
    const applied = new Set((await trx.withSchema(schema).table('schema_migrations').select('name')).map((r: { name: string }) => r.name));
    const done: string[] = [];
    for (const m of migrations) {
      if (applied.has(m.name)) continue;
      await m.up(trx, schema);
      await trx.withSchema(schema).table('schema_migrations').insert({ name: m.name });
      done.push(m.name);
    }
    return done;
  });
}

/**
 * Runs an ALTER of a live table with a bounded wait for its ACCESS EXCLUSIVE lock. While the ALTER
 * waits (for running instances' transactions on the table), every new insert queues behind it: a
 * service's writes would stall as long as it waited. After 5 s it fails with 55P03 instead, the
 * migration transaction rolls back, and start-up tries again (runProcess). The limit is lifted after
 * the ALTER, so later migrations wait as they always did.
 */
export async function withLockTimeout(trx: Knex.Transaction, alter: () => PromiseLike<unknown>): Promise<void> {
  await trx.raw(`set local lock_timeout = '5s'`);
  await alter();
  await trx.raw('set local lock_timeout to default');
}

function noop(): void {}

/**
 * Lets a transaction commit only before `deadline` (epoch ms), for a caller that treats the work as
 * not done once the deadline has passed: call it as the work's last step. Past the deadline it
 * throws `late(ms late)` (the transaction rolls back); before, PostgreSQL is told to end the session,
 * rolling back, should the COMMIT arrive after the deadline (idle_in_transaction_session_timeout).
 */
export async function commitOnlyBefore(trx: Knex.Transaction, deadline: number, late: (msLate: number) => Error): Promise<void> {
  const left = deadline - Date.now();
  if (left <= 0) throw late(-left);
  await trx.raw(`select set_config('idle_in_transaction_session_timeout', ?, true)`, [String(left)]);
}
