import { createDb, type Knex } from '../src/db';
import { COMMIT_AHEAD, WITH_BEGIN, type PreparingPgClient } from '../src/prepared';
import { retryTransientConflicts } from '../src/db-errors';
import { eventually, createTestDatabase, type TestDatabase } from '@bo/testkit';

/**
 * A stand-in for node-postgres's connection inside a transaction, recording what is written in order,
 * cork and uncork included. A statement of knex's (sent with a callback) is answered by `statement`
 * (an Error fails it); a plain text the client sends itself (BEGIN, COMMIT, a statement sent with
 * BEGIN) by the promise `plain` returns.
 */
function recordingConnection(answers: {
  statement?: (text: string) => Error | { command: string };
  plain?: (text: string) => Promise<unknown>;
}) {
  const wire: string[] = [];
  const connection = {
    pipeline: true,
    __knexTxId: 'trx1',
    connection: { stream: { cork: () => wire.push('cork'), uncork: () => wire.push('uncork') } },
    query(config: string | { text: string }, callback?: (err: Error | null, result?: unknown) => void) {
      const text = typeof config === 'string' ? config : config.text;
      wire.push(text);
      if (!callback) return answers.plain?.(text) ?? Promise.resolve({ command: text.replace(';', '') });
      const outcome = answers.statement?.(text) ?? { command: 'SELECT' };
      if (outcome instanceof Error) callback(outcome);
      else callback(null, { ...outcome, rows: [], fields: [] });
      return Promise.resolve();
    },
  };
  return { connection, wire };
}

/** Named prepared statements (prepared.ts) over real PostgreSQL, on a pool of one connection. */
describe('prepared statements', () => {
  let database: TestDatabase;
  let db: Knex;
  const prepared = async () => {
    const result = await db.raw<{ rows: Array<{ statement: string }> }>(
      'select statement from pg_prepared_statements order by prepare_time',
    );
    return result.rows.map((r) => r.statement);
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'prepared', 1);
    await db.raw('create schema prepared');
    await db.raw('create table prepared.items (id integer primary key, name text not null)');
    await db('items').insert([
      { id: 1, name: 'one' },
      { id: 2, name: 'two' },
    ]);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  it('prepares a statement with parameters once per connection and runs it again by name', async () => {
    const byId = (id: number) => db('items').where({ id }).first();
    expect(await byId(1)).toEqual({ id: 1, name: 'one' });
    expect(await byId(2)).toEqual({ id: 2, name: 'two' });
    const statements = await prepared();
    expect(statements.filter((s) => s.startsWith('select * from "items" where "id" = $1'))).toHaveLength(1);
    // Plain texts (BEGIN, COMMIT, the lookup itself) stay on the simple protocol.
    await db.transaction(async (trx) => trx.raw('select 1'));
    expect(statements.concat(await prepared()).some((s) => /^(BEGIN|COMMIT|select 1)/i.test(s))).toBe(false);
  });

  it('recovers when a migration changes the columns a prepared statement returns', async () => {
    const all = () => db('items').where('id', '>', 0).orderBy('id');
    expect(await all()).toHaveLength(2);
    await db.raw('alter table prepared.items add column note text');
    // Outside a transaction it runs again at once, under a fresh name.
    expect(await all()).toEqual([
      { id: 1, name: 'one', note: null },
      { id: 2, name: 'two', note: null },
    ]);

    await db.raw('alter table prepared.items add column code text');
    // Inside one the transaction is aborted: a transient conflict, which the runtime runs again.
    let attempts = 0;
    const rows = await retryTransientConflicts(() =>
      db.transaction(async (trx) => {
        attempts++;
        return trx('items').where('id', '>', 0).orderBy('id');
      }),
    );
    expect(rows[0]).toEqual({ id: 1, name: 'one', note: null, code: null });
    expect(attempts).toBe(2);
  });
});

/** A transaction's BEGIN goes out with its first statement, in the same write (prepared.ts). */
describe('BEGIN written ahead', () => {
  let database: TestDatabase;
  let db: Knex;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'ahead', 2);
    await db.raw('create schema ahead');
    await db.raw('create table ahead.items (id integer primary key, name text not null)');
  });
  afterEach(async () => {
    await db('items').delete();
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  const names = async () => (await db('items').orderBy('id')).map((r: { name: string }) => r.name);

  it('still opens a transaction: its writes are invisible to other connections until the commit', async () => {
    let seenInside: string[] | undefined;
    await db.transaction(async (trx) => {
      await trx('items').insert({ id: 1, name: 'first' });
      await trx('items').insert({ id: 2, name: 'second' });
      seenInside = await names();
    });
    expect(seenInside).toEqual([]);
    expect(await names()).toEqual(['first', 'second']);
  });

  it('rolls the whole back when its first statement fails, and leaves the connection usable', async () => {
    await expect(
      db.transaction(async (trx) => {
        await trx('items').insert({ id: 1, name: null as unknown as string });
      }),
    ).rejects.toThrow(/null value/);
    await expect(
      db.transaction(async (trx) => {
        await trx('items').insert({ id: 3, name: 'kept until the failure' });
        await trx.raw('select 1 / 0');
      }),
    ).rejects.toThrow(/division by zero/);
    expect(await names()).toEqual([]);
    // Both pooled connections answer again, in and out of transactions.
    await Promise.all([db.transaction((trx) => trx('items').insert({ id: 4, name: 'after' })), db.raw('select 1')]);
    expect(await names()).toEqual(['after']);
  });

  it('fails a transaction whose connection was killed before its BEGIN went out, writes nothing, and the pool recovers', async () => {
    const outcome = db.transaction(async (trx) => {
      // BEGIN is still waiting for this statement: kill the connection under it first.
      const { rows } = await db.raw<{ rows: Array<{ pid: number }> }>(
        `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state like 'idle%'`,
      );
      await Promise.all(rows.map((r) => db.raw('select pg_terminate_backend(?)', [r.pid])));
      await trx('items').insert({ id: 9, name: 'never' });
    });
    await expect(outcome).rejects.toThrow();
    expect(await names()).toEqual([]);
    await db.transaction((trx) => trx('items').insert({ id: 10, name: 'after the kill' }));
    expect(await names()).toEqual(['after the kill']);
  });

  it('commits and rolls back a transaction that ran no statement', async () => {
    await db.transaction(async () => undefined);
    await expect(
      db.transaction(async () => {
        throw new Error('nothing done');
      }),
    ).rejects.toThrow('nothing done');
    expect(await db.raw('select 1 as one')).toMatchObject({ rows: [{ one: 1 }] });
  });

  it("answers knex's BEGIN at once and writes it with the next statement, which fails with BEGIN's failure", async () => {
    const client = db.client as PreparingPgClient;
    let failBegin!: (err: Error) => void;
    const { connection, wire } = recordingConnection({ plain: () => new Promise((_, reject) => (failBegin = reject)) });
    await expect(client._query(connection, { sql: 'BEGIN;' })).resolves.toMatchObject({ response: { command: 'BEGIN' } });
    expect(wire).toEqual([]);
    const statement = client._query(connection, { sql: 'select 1' });
    expect(wire).toEqual(['cork', 'BEGIN;', 'select 1', 'uncork']);
    failBegin(new Error('connection broken'));
    await expect(statement).rejects.toThrow('connection broken');

    // A transaction that ran nothing sends nothing, its end included.
    wire.length = 0;
    await client._query(connection, { sql: 'BEGIN;' });
    await expect(client._query(connection, { sql: 'COMMIT;' })).resolves.toMatchObject({ response: { command: 'COMMIT' } });
    await client._query(connection, { sql: 'select 2' });
    expect(wire).toEqual(['select 2']);
  });
  it('writes a statement sent with BEGIN right after it, with the next statement, which fails with its failure', async () => {
    const client = db.client as PreparingPgClient;
    const { connection, wire } = recordingConnection({
      statement: (text) => (text === 'select 3' ? new Error('current transaction is aborted') : { command: 'SELECT' }),
      plain: (text) => (text === 'hold taken' ? Promise.reject(new Error('key held by a twin')) : Promise.resolve({ command: 'SELECT' })),
    });
    const withBegin = (sql: string) => client._query(connection, { sql, options: { ...WITH_BEGIN } });

    await client._query(connection, { sql: 'BEGIN;' });
    await expect(withBegin('hold free')).resolves.toMatchObject({ response: { command: 'SELECT' } });
    expect(wire).toEqual([]);
    await client._query(connection, { sql: 'select 1' });
    expect(wire).toEqual(['cork', 'BEGIN;', 'hold free', 'select 1', 'uncork']);

    // Its failure is the next statement's, though PostgreSQL fails that one too (aborted transaction).
    wire.length = 0;
    await client._query(connection, { sql: 'BEGIN;' });
    await withBegin('hold taken');
    await expect(client._query(connection, { sql: 'select 3' })).rejects.toThrow('key held by a twin');
    expect(wire).toEqual(['cork', 'BEGIN;', 'hold taken', 'select 3', 'uncork']);

    // A transaction ended before its first statement sends nothing of it.
    wire.length = 0;
    await client._query(connection, { sql: 'BEGIN;' });
    await withBegin('hold free');
    await expect(client._query(connection, { sql: 'ROLLBACK' })).resolves.toMatchObject({ response: { command: 'ROLLBACK' } });
    await client._query(connection, { sql: 'select 2' });
    expect(wire).toEqual(['select 2']);

    // Only right after a pending BEGIN, and only a text without bindings (it goes on the simple protocol).
    await expect(withBegin('select 4')).rejects.toThrow(/first in a transaction/);
    await client._query(connection, { sql: 'BEGIN;' });
    await expect(client._query(connection, { sql: 'select ?', bindings: [1], options: { ...WITH_BEGIN } })).rejects.toThrow(
      /without bindings/,
    );
  });

  it('sends a statement with BEGIN on a real connection: it runs inside the transaction', async () => {
    const seen = await db.transaction(async (trx) => {
      await trx.raw(`select set_config('application_name', 'sent with begin', true)`).options(WITH_BEGIN);
      return (await trx.raw<{ rows: Array<{ name: string }> }>(`select current_setting('application_name') as name`)).rows[0]!.name;
    });
    expect(seen).toBe('sent with begin');
    // set_config(…, true) lasts until the transaction's end: it did run inside it.
    expect((await db.raw<{ rows: Array<{ name: string }> }>(`select current_setting('application_name') as name`)).rows[0]!.name).not.toBe(
      'sent with begin',
    );
  });
});

/** A transaction's last statement may carry its COMMIT in the same write (prepared.ts, COMMIT_AHEAD). */
describe('COMMIT written with the last statement', () => {
  let database: TestDatabase;
  let db: Knex;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'last', 2);
    await db.raw('create schema last');
    await db.raw('create table last.items (id integer primary key, name text not null)');
    // A deferred check fails at COMMIT, after the statement that broke it succeeded.
    await db.raw('create table last.links (id integer primary key, item integer references last.items deferrable initially deferred)');
  });
  afterEach(async () => {
    await db('links').delete();
    await db('items').delete();
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  const names = async () => (await db('items').orderBy('id')).map((r: { name: string }) => r.name);
  const ahead = (trx: Knex.Transaction, id: number, name: string | null) =>
    trx.raw('insert into items (id, name) values (?, ?)', [id, name]).options(COMMIT_AHEAD);

  it('commits with the last statement, and the transaction is invisible to others until then', async () => {
    let seenBefore: string[] | undefined;
    let seenAfter: string[] | undefined;
    await db.transaction(async (trx) => {
      await trx('items').insert({ id: 1, name: 'first' });
      seenBefore = await names();
      await ahead(trx, 2, 'last');
      seenAfter = await names();
    });
    expect(seenBefore).toEqual([]);
    expect(seenAfter).toEqual(['first', 'last']);
  });

  it('rolls the whole back when the last statement fails, answers its failure, and leaves the pool usable', async () => {
    await expect(
      db.transaction(async (trx) => {
        await trx('items').insert({ id: 1, name: 'undone' });
        await ahead(trx, 2, null);
      }),
    ).rejects.toThrow(/null value/);
    // Alone in its transaction too: BEGIN, the statement and COMMIT in one write.
    await expect(db.transaction((trx) => ahead(trx, 3, null))).rejects.toThrow(/null value/);
    expect(await names()).toEqual([]);
    await Promise.all([db.transaction((trx) => ahead(trx, 4, 'after')), db.transaction((trx) => ahead(trx, 5, 'again'))]);
    expect(await names()).toEqual(['after', 'again']);
  });

  it("fails the last statement with the COMMIT's failure when the statement succeeded but the commit did not", async () => {
    const outcome = db.transaction(async (trx) => {
      await trx('items').insert({ id: 1, name: 'undone' });
      await trx.raw('insert into links (id, item) values (?, ?)', [1, 999]).options(COMMIT_AHEAD);
    });
    await expect(outcome).rejects.toMatchObject({ code: '23503' });
    expect(await names()).toEqual([]);
    expect(await db('links')).toEqual([]);
  });

  it('fails, writes nothing and leaves the pool usable when the connection dies while the last statement waits', async () => {
    await db('items').insert({ id: 7, name: 'locked' });
    const locker = await db.transaction();
    try {
      await locker('items').where({ id: 7 }).update({ name: 'held' });
      const outcome = db.transaction(async (trx) => {
        await trx('items').insert({ id: 1, name: 'never' });
        // Waits on the row lock: the COMMIT behind it is in the same write, not yet run.
        await trx.raw('update items set name = ? where id = ?', ['mine', 7]).options(COMMIT_AHEAD);
      });
      // The one backend waiting on a lock: the transaction's, behind the locker's row lock.
      const blocked = await eventually(async () => {
        // Inside a transaction the activity view is read once and kept: drop that copy each time.
        await locker.raw('select pg_stat_clear_snapshot()');
        const { rows } = await locker.raw<{ rows: Array<{ pid: number }> }>(
          `select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        );
        expect(rows).toHaveLength(1);
        return rows;
      });
      await locker.raw('select pg_terminate_backend(?)', [blocked[0]!.pid]);
      await expect(outcome).rejects.toThrow();
    } finally {
      await locker.rollback();
    }
    expect(await names()).toEqual(['locked']);
    await db.transaction((trx) => ahead(trx, 2, 'after the kill'));
    expect(await names()).toEqual(['after the kill', 'locked']);
  });

  it('refuses a statement after the last one, which already committed', async () => {
    const outcome = db.transaction(async (trx) => {
      await ahead(trx, 1, 'committed');
      await trx('items').insert({ id: 2, name: 'too late' });
    });
    await expect(outcome).rejects.toThrow(/after the transaction's COMMIT went out/);
    expect(await names()).toEqual(['committed']);
    await db.transaction((trx) => trx('items').insert({ id: 3, name: 'pool fine' }));
    expect(await names()).toEqual(['committed', 'pool fine']);
  });

  it("writes BEGIN, the statement and COMMIT together, and answers knex's end of the transaction from that COMMIT", async () => {
    const client = db.client as PreparingPgClient;
    let commitAnswer: { command: string } | Error = { command: 'COMMIT' };
    const { connection, wire } = recordingConnection({
      statement: (text) => (text === 'bad' ? new Error('statement failed') : { command: 'INSERT' }),
      plain: (text) =>
        text !== 'COMMIT;'
          ? Promise.resolve({ command: 'BEGIN' })
          : commitAnswer instanceof Error
            ? Promise.reject(commitAnswer)
            : Promise.resolve(commitAnswer),
    });
    const last = (sql: string) => client._query(connection, { sql, options: { ...COMMIT_AHEAD } });

    await client._query(connection, { sql: 'BEGIN;' });
    await expect(last('insert 1')).resolves.toMatchObject({ response: { command: 'INSERT' } });
    expect(wire).toEqual(['cork', 'BEGIN;', 'insert 1', 'COMMIT;', 'uncork']);
    await expect(client._query(connection, { sql: 'COMMIT;' })).resolves.toMatchObject({ response: { command: 'COMMIT' } });
    expect(wire).toHaveLength(5);

    // A failed statement: PostgreSQL answers the COMMIT behind it with ROLLBACK; knex's ROLLBACK is answered.
    wire.length = 0;
    commitAnswer = { command: 'ROLLBACK' };
    await client._query(connection, { sql: 'select 1' });
    await expect(last('bad')).rejects.toThrow('statement failed');
    await expect(client._query(connection, { sql: 'ROLLBACK' })).resolves.toMatchObject({ response: { command: 'ROLLBACK' } });
    expect(wire).toEqual(['select 1', 'cork', 'bad', 'COMMIT;', 'uncork']);

    // A COMMIT that failed fails the statement, and knex's COMMIT too, should the work go on regardless.
    commitAnswer = new Error('could not serialize access');
    await expect(last('insert 2')).rejects.toThrow('could not serialize access');
    await expect(client._query(connection, { sql: 'COMMIT;' })).rejects.toThrow('could not serialize access');

    // A ROLLBACK after a commit that took effect is a bug, never answered as if undone.
    commitAnswer = { command: 'COMMIT' };
    await last('insert 3');
    await expect(client._query(connection, { sql: 'ROLLBACK' })).rejects.toThrow(/after the transaction's COMMIT went out/);

    // Outside a transaction there is no COMMIT to send.
    await expect(client._query({ ...connection, __knexTxId: undefined }, { sql: 'x', options: { ...COMMIT_AHEAD } })).rejects.toThrow(
      /last statement of a transaction/,
    );
  });
});
