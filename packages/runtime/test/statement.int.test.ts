import { createDb, type Knex } from '../src/db';
import { positionalText, runStatement } from '../src/statement';
import { statementsIn, createTestDatabase, type TestDatabase } from '@bo/testkit';

/** runStatement: a fixed text run beneath knex's formatter, on the connection knex would have used. */
describe('a fixed statement text (runStatement)', () => {
  let database: TestDatabase;
  let db: Knex;

  beforeAll(async () => {
    database = await createTestDatabase();
    // One connection: a connection not given back would make the next statement wait forever.
    db = createDb(database.url, 'public', 1);
    await db.raw('create table notes (id serial primary key, org_id int not null, body text not null)');
    await db('notes').insert([
      { org_id: 1, body: 'one' },
      { org_id: 1, body: 'two' },
      { org_id: 2, body: 'other' },
    ]);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  const byOrg = () => positionalText(db, 'select body from notes where org_id = ? and id > ? order by id');

  it('numbers knex placeholders once, and runs the text with its values', async () => {
    expect(byOrg()).toBe('select body from notes where org_id = $1 and id > $2 order by id');
    expect(await runStatement<{ body: string }>(db, byOrg(), [1, 0])).toEqual([{ body: 'one' }, { body: 'two' }]);
    expect(await runStatement<{ body: string }>(db, byOrg(), [2, 0])).toEqual([{ body: 'other' }]);
  });

  it("runs in the caller's transaction: it sees the transaction's own rows, and the query events count it", async () => {
    // With one connection in the pool, a statement that asked the pool instead would wait forever.
    await db
      .transaction(async (trx) => {
        await trx('notes').insert({ org_id: 3, body: 'uncommitted' });
        expect(await runStatement<{ body: string }>(trx, byOrg(), [3, 0])).toEqual([{ body: 'uncommitted' }]);
        await trx.rollback(new Error('rolled back'));
      })
      .catch((err: Error) => expect(err.message).toBe('rolled back'));
    expect(await runStatement(db, byOrg(), [3, 0])).toEqual([]);

    const counted = await statementsIn(db, (trx) => runStatement(trx, byOrg(), [1, 0]));
    expect(counted).toEqual([byOrg()]);
  });

  it('fails as knex would, and gives the connection back: the next statement runs on the one connection there is', async () => {
    const broken = positionalText(db, 'select body from no_such_table where org_id = ?');
    await expect(runStatement(db, broken, [1])).rejects.toThrow(/no_such_table/);
    await expect(runStatement(db, byOrg(), [1, 1])).resolves.toEqual([{ body: 'two' }]);
  });

  // Through runStatement and through knex's own runner: both reach PreparingPgClient, which marks a
  // connection the server ended, so the pool never hands it out again.
  it.each([
    ['runStatement', (text: string, values: unknown[]) => runStatement(db, text, values)],
    [
      "knex's runner",
      async (text: string, values: unknown[]) =>
        (await db.raw<{ rows: unknown[] }>(text.replace(/\$\d+/g, '?'), values as Knex.RawBinding[])).rows,
    ],
  ])('fails when its connection is killed mid-statement, and the next statement gets a working one (%s)', async (_name, run) => {
    const sleeping = positionalText(db, 'select pg_sleep(?) as slept, pg_backend_pid() as pid');
    const running = run(sleeping, [5]);
    const admin = createDb(database.url, 'public', 1);
    try {
      // The statement's backend is the one sleeping in pg_sleep.
      let killed = 0;
      for (let i = 0; i < 50 && killed === 0; i++) {
        const { rows } = await admin.raw<{ rows: Array<{ pid: number }> }>(
          `select pid from pg_stat_activity where query like 'select pg_sleep(%' and pid <> pg_backend_pid()`,
        );
        for (const { pid } of rows) killed += (await admin.raw('select pg_terminate_backend(?)', [pid])).rows.length;
        if (killed === 0) await new Promise((r) => setTimeout(r, 20));
      }
      expect(killed).toBe(1);
      await expect(running).rejects.toThrow(/terminat/i);
      // At once: the killed connection's socket may not have closed yet.
      await expect(run(byOrg(), [2, 0])).resolves.toEqual([{ body: 'other' }]);
    } finally {
      await admin.destroy();
    }
  });

  it('refuses a text that would keep a literal "?": it would be numbered again as it runs', () => {
    expect(() => positionalText(db, "select '\\?' as question where 1 = ?")).toThrow(/literal "\?"/);
  });
});
