import { createDb, type Knex } from '../src/db';
import { isUniqueViolation } from '../src/sequences';
import { inTransaction } from '../src/transaction';
import { createTestDatabase, type TestDatabase } from '@bo/testkit';

/**
 * inTransaction runs nested transactions flat and falls back to real savepoints only when a nested
 * failure did not end the work: every outcome must be the one savepoints give.
 */
describe('one transaction, nested ones flat unless a savepoint matters', () => {
  let database: TestDatabase;
  let db: Knex;
  let statements: string[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'svc', 3);
    await db.raw('create schema svc');
    await db.raw('create table svc.items (name text primary key)');
    db.on('query', (q: { sql: string }) => statements.push(q.sql));
  });
  beforeEach(async () => {
    await db('items').delete();
    statements = [];
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  const names = async () => (await db('items').orderBy('name')).map((r: { name: string }) => r.name);
  const savepoints = () => statements.filter((s) => /^SAVEPOINT/i.test(s)).length;

  it('commits nested work with the whole, sending no savepoint', async () => {
    const result = await inTransaction(db, async (trx) => {
      await trx('items').insert({ name: 'outer' });
      return trx.transaction(async (inner) => {
        await inner('items').insert({ name: 'inner' });
        return inner.transaction(async (deepest) => {
          await deepest('items').insert({ name: 'deepest' });
          return 'done';
        });
      });
    });
    expect(result).toBe('done');
    expect(await names()).toEqual(['deepest', 'inner', 'outer']);
    expect(savepoints()).toBe(0);
  });

  it('rolls everything back when a nested failure ends the work, with that very error and one run', async () => {
    const failure = new Error('refused');
    let runs = 0;
    const outcome = inTransaction(db, async (trx) => {
      runs++;
      await trx('items').insert({ name: 'outer' });
      await trx.transaction(async (inner) => {
        await inner('items').insert({ name: 'inner' });
        throw failure;
      });
    });
    await expect(outcome).rejects.toBe(failure);
    expect(runs).toBe(1);
    expect(await names()).toEqual([]);
  });

  it('undoes only the nested part when the work catches its failure and goes on, as a savepoint does', async () => {
    let runs = 0;
    const result = await inTransaction(db, async (trx) => {
      runs++;
      await trx('items').insert({ name: 'outer' });
      try {
        await trx.transaction(async (inner) => {
          await inner('items').insert({ name: 'undone' });
          throw new Error('changed its mind');
        });
      } catch {
        await trx('items').insert({ name: 'after' });
      }
      return 'went on';
    });
    expect(result).toBe('went on');
    expect(await names()).toEqual(['after', 'outer']);
    // The flat run was abandoned at its first statement after the failure; the second used a savepoint.
    expect(runs).toBe(2);
    expect(savepoints()).toBe(1);
  });

  it('recovers from an SQL error inside a nested transaction the way a savepoint lets it', async () => {
    await db('items').insert({ name: 'taken' });
    const result = await inTransaction(db, async (trx) => {
      await trx('items').insert({ name: 'first' });
      for (const name of ['taken', 'free']) {
        try {
          await trx.transaction((inner) => inner('items').insert({ name }));
          return name;
        } catch (err) {
          if (!isUniqueViolation(err)) throw err;
        }
      }
      return 'none';
    });
    expect(result).toBe('free');
    expect(await names()).toEqual(['first', 'free', 'taken']);
  });

  it('answers what a caught failure led to even when the work ran no statement after it', async () => {
    const result = await inTransaction(db, async (trx) => {
      await trx('items').insert({ name: 'kept' });
      try {
        await trx.transaction(async (inner) => {
          await inner('items').insert({ name: 'undone' });
          throw new Error('no');
        });
        return 'nested committed';
      } catch {
        return 'nested failed';
      }
    });
    expect(result).toBe('nested failed');
    expect(await names()).toEqual(['kept']);
  });
});
