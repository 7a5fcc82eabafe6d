import { createDb, type Knex } from '../src/db';
import { retryTransientConflicts } from '../src/db-errors';
import { createTestDatabase, type TestDatabase } from '../src/testing/infra';

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
