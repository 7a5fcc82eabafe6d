import { envelope } from '@bo/contracts';
import { createDb, migrate, testing, type Knex } from '@bo/runtime';
import { IdempotencyStore } from '../src/idempotency/idempotency';
import { gatewayMigrations } from '../src/migrations';

/** The gateway's fast-path claims: leases that expire, taken over by a token, never overwritten by a stale holder. */
describe('gateway idempotency store', () => {
  let database: testing.TestDatabase;
  let db: Knex;
  let store: IdempotencyStore;
  beforeAll(async () => {
    database = await testing.createTestDatabase();
    db = createDb(database.url, 'gateway', 2);
    await migrate(db, 'gateway', gatewayMigrations);
    store = new IdempotencyStore(db, 24);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  const expireLease = (key: string) =>
    db('idempotency_keys')
      .where({ key })
      .update({ lease_until: db.raw(`now() - interval '1 second'`) });

  it('lets a retry take over an expired claim, and ignores the stale holder afterwards', async () => {
    const first = await store.claim(1, 'k1', 'op', 'h', 60_000);
    expect(first.kind).toBe('new');
    expect((await store.claim(1, 'k1', 'op', 'h', 60_000)).kind).toBe('in_progress');
    await expireLease('k1');
    const second = await store.claim(1, 'k1', 'op', 'h', 60_000);
    if (first.kind !== 'new' || second.kind !== 'new') throw new Error('expected two claims');
    // The first holder comes back late: it may neither answer for the key nor end the new lease.
    await store.complete(1, 'k1', first.token, envelope(200, { from: 'stale' }));
    await store.endLease(1, 'k1', first.token);
    expect((await store.claim(1, 'k1', 'op', 'h', 60_000)).kind).toBe('in_progress');
    await store.complete(1, 'k1', second.token, envelope(200, { from: 'current' }));
    expect(await store.claim(1, 'k1', 'op', 'h', 60_000)).toEqual({ kind: 'replay', envelope: envelope(200, { from: 'current' }) });
  });

  it('keeps the body of a key whose lease ended: another body is still refused', async () => {
    const claim = await store.claim(1, 'k2', 'op', 'h', 60_000);
    if (claim.kind !== 'new') throw new Error('expected a claim');
    await store.endLease(1, 'k2', claim.token);
    expect((await store.claim(1, 'k2', 'op', 'other', 60_000)).kind).toBe('mismatch');
    expect((await store.claim(1, 'k2', 'op', 'h', 60_000)).kind).toBe('new');
  });
});
