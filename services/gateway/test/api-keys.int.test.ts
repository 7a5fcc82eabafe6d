import { createDb, migrate, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { ApiKeyStore, createApiKey, NEW_KEYS_EVERY_MS, revokeApiKey } from '../src/api-key/api-keys';
import { gatewayMigrations } from '../src/migrations';

/** The gateway's API keys: a snapshot of every live key, refreshed ahead of expiry, new keys looked for at a bounded rate, revocation still felt. */
describe('API key store', () => {
  const CACHE_MS = 2000;
  let database: testing.TestDatabase;
  let db: Knex;
  let lookups = 0;

  beforeAll(async () => {
    database = await testing.createTestDatabase();
    db = createDb(database.url, 'gateway', 4);
    await migrate(db, 'gateway', gatewayMigrations);
    db.on('query', (q: { sql: string }) => {
      if (q.sql.includes('api_keys') && q.sql.startsWith('select')) lookups++;
    });
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  it('looks a new key up once for all the requests waiting on it', async () => {
    const { key } = await createApiKey(db, 3);
    const store = new ApiKeyStore(db, CACHE_MS);
    const before = lookups;
    const orgs = await Promise.all(Array.from({ length: 32 }, () => store.orgOf(key)));
    expect(orgs).toEqual(Array(32).fill(3));
    expect(lookups - before).toBe(1);
    expect(await store.orgOf('bo_unknown')).toBeUndefined();
  });

  it('refreshes a key in use behind its requests, so none of them waits on the database when it would have expired', async () => {
    const { key } = await createApiKey(db, 4);
    const store = new ApiKeyStore(db, CACHE_MS);
    const fetched = Date.now();
    expect(await store.orgOf(key)).toBe(4);
    const before = lookups;
    await testing.waitUntil(() => Date.now() - fetched > CACHE_MS * 0.85, { timeoutMs: CACHE_MS });
    expect(await store.orgOf(key)).toBe(4);
    await testing.waitUntil(() => lookups - before === 1, { timeoutMs: CACHE_MS });

    // Past the first lookup's cache time, with the table locked so that any lookup would hang: the
    // refreshed entry answers.
    await testing.waitUntil(() => Date.now() - fetched > CACHE_MS, { timeoutMs: CACHE_MS * 2 });
    await db.transaction(async (trx) => {
      await trx.raw('lock table gateway.api_keys in access exclusive mode');
      expect(await store.orgOf(key)).toBe(4);
    });
  });

  it('stops answering a revoked key within the cache time', async () => {
    const { key } = await createApiKey(db, 5);
    const store = new ApiKeyStore(db, CACHE_MS);
    expect(await store.orgOf(key)).toBe(5);
    expect(await revokeApiKey(db, key)).toBe(true);
    // Within the cache time and the one refresh that finds it revoked.
    await testing.waitUntil(async () => (await store.orgOf(key)) === undefined, { timeoutMs: CACHE_MS * 2 });
  });

  it('answers a flood of made-up keys from memory, asking the database at most once a NEW_KEYS_EVERY_MS, and finds a key made meanwhile', async () => {
    const store = new ApiKeyStore(db, CACHE_MS);
    const { key: before } = await createApiKey(db, 6);
    expect(await store.orgOf(before)).toBe(6);
    expect(store.fromMemory(before)).toBe(6);
    expect(store.fromMemory('bo_made_up')).toBeNull();
    const started = Date.now();
    const statements = lookups;
    let made: string | undefined;
    const answers: Array<Promise<number | undefined>> = [];
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 100; i++) answers.push(store.orgOf(`bo_made_up_${round}_${i}`));
      if (round === 5) made = (await createApiKey(db, 8)).key;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    answers.push(store.orgOf(made as string));
    const orgs = await Promise.all(answers);
    expect(orgs.slice(0, -1).every((org) => org === undefined)).toBe(true);
    expect(orgs.at(-1)).toBe(8);
    const seconds = (Date.now() - started) / 1000;
    // A thousand made-up keys over about a quarter of a second: a handful of statements, not a thousand.
    expect(lookups - statements).toBeLessThanOrEqual(Math.ceil((seconds * 1000) / NEW_KEYS_EVERY_MS) + 1);
  });
});
