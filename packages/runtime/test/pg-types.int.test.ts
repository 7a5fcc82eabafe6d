import { createDb, type Knex } from '../src/db';
import { createTestDatabase, type TestDatabase } from '@bo/testkit';

/**
 * timestamptz values as node-pg hands them to the services (pg-types.ts), over real PostgreSQL in
 * session time zones east, west and on UTC, with and without fractions: each must be the instant
 * PostgreSQL itself reports as epoch milliseconds.
 */
describe('timestamptz read from PostgreSQL', () => {
  let database: TestDatabase;
  let db: Knex;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'public', 1);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  it.each(['UTC', 'Asia/Kolkata', 'America/St_Johns', 'Pacific/Chatham', 'Asia/Kathmandu', 'America/Los_Angeles'])(
    'reads the same instant as PostgreSQL in time zone %s',
    async (zone) => {
      await db.transaction(async (trx) => {
        await trx.raw(`set local time zone '${zone}'`);
        const { rows } = await trx.raw<{ rows: Array<{ at: Date; millis: string }> }>(
          `select at, floor(extract(epoch from at) * 1000)::text as millis
             from unnest(?::timestamptz[]) as at`,
          [
            [
              '2026-11-22 22:46:43.123456+00',
              '2026-03-29 01:30:00+00',
              '1999-12-31 23:59:59.999999+00',
              '2026-06-30 12:00:00.5+00',
              '1970-01-01 00:00:00+00',
              now(),
            ],
          ],
        );
        for (const row of rows) {
          expect(row.at).toBeInstanceOf(Date);
          expect(row.at.getTime()).toBe(Number(row.millis));
        }
      });
    },
  );
});

function now(): string {
  return new Date().toISOString();
}
