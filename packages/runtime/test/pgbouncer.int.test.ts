import { createDb, migrate, type Knex } from '../src/db';
import { createTestDatabase, startPgBouncer, type PgBouncer, type TestDatabase } from '@bo/testkit';

/**
 * The runtime's pools behind PgBouncer in transaction mode, as Debian ships it (1.18: no prepared
 * statements kept across server connections), run by the test itself on a port of its own.
 */
describe('behind PgBouncer in transaction mode', () => {
  let database: TestDatabase;
  let bouncer: PgBouncer;
  let direct: Knex;
  const pools: Knex[] = [];
  const pooled = (preparedStatements: boolean, poolMax = 4) => {
    const db = createDb(bouncer.urlFor('pooled'), 'pooled', poolMax, { preparedStatements });
    pools.push(db);
    return db;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    direct = createDb(database.url, 'pooled', 1);
    await direct.raw('create schema pooled');
    await direct.raw('create table pooled.items (id integer primary key, name text not null)');
    await direct('items').insert([
      { id: 1, name: 'one' },
      { id: 2, name: 'two' },
    ]);
    bouncer = await startPgBouncer({ databaseUrl: database.url, schemas: ['pooled'], poolSize: 2 });
  });
  afterAll(async () => {
    for (const db of pools) await db.destroy();
    await bouncer?.stop();
    await direct.destroy();
    await database.drop();
  });

  /**
   * A statement named on one server connection, then run again while another client's transaction
   * holds that connection: the pooler hands the statement another server connection.
   */
  async function nameThenMove(db: Knex): Promise<string> {
    const read = () => db.raw<{ rows: Array<{ name: string }> }>('select name from items where id = ?', [1]);
    await read();
    const holder = pooled(false, 1);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let holding!: () => void;
    const taken = new Promise<void>((r) => (holding = r));
    // PgBouncer hands out the server connection used last first: the one the statement was named on.
    const transaction = holder.transaction(async (trx) => {
      await trx.raw('select 1');
      holding();
      await held;
    });
    await taken;
    try {
      return (await read()).rows[0]!.name;
    } finally {
      release();
      await transaction;
    }
  }

  it('breaks named prepared statements: a statement named on one server connection is unknown on the next', async () => {
    await expect(nameThenMove(pooled(true, 1))).rejects.toThrow(/prepared statement "bo\d+_\d+" does not exist/);
  });

  it('works with DB_PREPARED_STATEMENTS=off: every statement unnamed, transactions whole, BEGIN and COMMIT sent with their statements', async () => {
    const db = pooled(false, 8);
    expect(await nameThenMove(db)).toBe('one');
    // More client connections than server connections: transactions share two server connections.
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        db.transaction(async (trx) => {
          await trx('items').insert({ id: 100 + i, name: `n${i}` });
          const [row] = await trx('items')
            .where({ id: 100 + i })
            .select('name');
          expect(row).toEqual({ name: `n${i}` });
          await trx.raw('select pg_advisory_xact_lock(?)', [i % 3]);
        }),
      ),
    );
    expect(Number((await direct('items').where('id', '>=', 100).count<{ count: string }[]>('* as count'))[0]!.count)).toBe(40);
    // A transaction that fails rolls back whole, on whichever server connection it ran.
    await expect(
      db.transaction(async (trx) => {
        await trx('items').insert({ id: 500, name: 'rolled back' });
        await trx('items').insert({ id: 500, name: 'duplicate' });
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await direct('items').where({ id: 500 }).first()).toBeUndefined();
    // Migrations run under their transaction-scoped advisory lock, which a pooler keeps whole.
    const applied = await Promise.all(
      [1, 2].map(() =>
        migrate(db, 'pooled', [{ name: '001_more', up: (trx) => trx.raw('alter table pooled.items add column note text') }]),
      ),
    );
    expect(applied.flat()).toEqual(['001_more']);
  });

  it('recovers after the pooler is killed and restarted', async () => {
    const db = pooled(false, 2);
    expect((await db('items').where({ id: 2 }).first<{ name: string }>('name'))?.name).toBe('two');
    await bouncer.kill();
    await expect(db('items').where({ id: 2 }).first('name')).rejects.toThrow();
    await bouncer.start();
    let name: string | undefined;
    for (let i = 0; i < 20 && name === undefined; i++) {
      name = await db('items')
        .where({ id: 2 })
        .first<{ name: string }>('name')
        .then((r) => r?.name)
        .catch(() => new Promise<undefined>((r) => setTimeout(() => r(undefined), 100)));
    }
    expect(name).toBe('two');
  });
});
