import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createDb, migrate, type Knex } from '../src/db';
import { runtimeMigrations } from '../src/runtime-migrations';
import { createTestDatabase, type TestDatabase } from '@bo/testkit';

/**
 * A runtime migration that alters the outbox needs its ACCESS EXCLUSIVE lock; while it waits for it,
 * every insert into the outbox (every write of the service) queues behind it. So it waits a bounded
 * time and gives up with 55P03, leaving the schema as it was, rather than stall writes indefinitely.
 */
describe('runtime migrations under live outbox traffic', () => {
  let database: TestDatabase;
  let db: Knex;
  const upTo004 = runtimeMigrations.filter((m) => m.name < '005');
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'svc', 4);
    await migrate(db, 'svc', upTo004);
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  it('gives up on the outbox lock with 55P03 while a write holds it, and applies once it is free', async () => {
    const writer = new pg.Client({ connectionString: database.url });
    await writer.connect();
    try {
      // A service instance still running the old version, in the middle of a write.
      await writer.query('begin');
      await writer.query(`insert into svc.outbox (event_id, type, org_id, envelope) values ($1, 't', 1, '{}')`, [randomUUID()]);
      await expect(migrate(db, 'svc', runtimeMigrations)).rejects.toMatchObject({ code: '55P03' });
      const columns = await db('information_schema.columns')
        .where({ table_schema: 'svc', table_name: 'outbox', column_name: 'traceparent' })
        .count({ n: '*' });
      expect(columns).toEqual([{ n: 0 }]);
    } finally {
      await writer.query('rollback');
      await writer.end();
    }
    // A later migration does not inherit the short lock timeout.
    let laterLockTimeout: unknown;
    const later = {
      name: '900_test_later',
      up: async (trx: Knex.Transaction) => void (laterLockTimeout = (await trx.raw('show lock_timeout')).rows[0].lock_timeout),
    };
    expect(await migrate(db, 'svc', [...runtimeMigrations, later])).toEqual([
      ...runtimeMigrations.filter((m) => m.name >= '005').map((m) => m.name),
      '900_test_later',
    ]);
    expect(laterLockTimeout).toBe('0');
  });
});
