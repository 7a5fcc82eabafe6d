import { createDb, migrate, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { gatewayMigrations } from '../src/migrations';
import { PgBucketStore } from '../src/rate-limit/bucket-store';
import { ratePolicy, type RatePolicy } from '../src/rate-limit/limiter';

/** The shared token buckets in PostgreSQL: what replicas taking at once are given, by the database's clock. */
describe('the shared rate-limit bucket', () => {
  let database: testing.TestDatabase;
  let dbs: Knex[];

  beforeAll(async () => {
    database = await testing.createTestDatabase();
    // Two pools, as two gateway replicas have.
    dbs = [createDb(database.url, 'gateway', 4), createDb(database.url, 'gateway', 4)];
    await migrate(dbs[0] as Knex, 'gateway', gatewayMigrations);
  });
  afterAll(async () => {
    await Promise.all(dbs.map((db) => db.destroy()));
    await database.drop();
  });

  it('gives a new bucket its burst, then what it refilled, never more', async () => {
    const policy = ratePolicy(10, 100) as RatePolicy;
    const store = new PgBucketStore(dbs[0] as Knex);
    const started = Date.now();
    expect(await store.take(1, 'reads', 10, policy)).toEqual({ granted: 10, left: 0 });
    const after = await store.take(1, 'reads', 10, policy);
    // Only what the time between the two statements earned came back.
    expect(after.granted + after.left).toBeLessThanOrEqual(((Date.now() - started) / 1000) * policy.perSecond);
    // Another organization and the other kind have their own buckets.
    expect((await store.take(2, 'reads', 3, policy)).granted).toBe(3);
    expect((await store.take(1, 'writes', 3, policy)).granted).toBe(3);
  });

  it('under 40 takers at once on two pools gives out no more than the burst and what the elapsed time earned', async () => {
    const policy = ratePolicy(50, 100) as RatePolicy;
    const stores = dbs.map((db) => new PgBucketStore(db));
    const started = Date.now();
    let granted = 0;
    // Bounded: ten rounds of 40 concurrent takes of 5.
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => (stores[i % 2] as PgBucketStore).take(7, 'reads', 5, policy)));
      granted += answers.reduce((sum, a) => sum + a.granted, 0);
    }
    const seconds = (Date.now() - started) / 1000;
    // The database's clock ran within the test's window, give or take a millisecond of each edge.
    expect(granted).toBeLessThanOrEqual(policy.burst + policy.perSecond * (seconds + 0.002));
    // And the bucket did give: at least its burst.
    expect(granted).toBeGreaterThanOrEqual(policy.burst);
    const [row] = await (dbs[0] as Knex)('rate_limits').where({ org_id: 7, kind: 'reads' });
    expect(Number(row.tokens)).toBeGreaterThanOrEqual(0);
    expect(Number(row.tokens)).toBeLessThanOrEqual(policy.burst);
  });
});
