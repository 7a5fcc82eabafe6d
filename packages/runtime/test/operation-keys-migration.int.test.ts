import { createDb, migrate, type Knex } from '../src/db';
import { findRecorded, OPERATION_KEYS, type OperationKey } from '../src/idempotency';
import { runtimeMigrations } from '../src/runtime-migrations';
import { createTestDatabase, type TestDatabase } from '@bo/testkit';

/** The shared key records over the per-service records earlier versions left. */
describe('runtime migration 009: one table of key records for every service', () => {
  let database: TestDatabase;
  const dbs: Knex[] = [];
  const before = runtimeMigrations.slice(
    0,
    runtimeMigrations.findIndex((m) => m.name === '009_runtime_operation_keys'),
  );
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const db of dbs) await db.destroy();
    await database?.drop();
  });

  const reply = (id: number) => JSON.stringify({ ok: true, status: 200, body: { id } });
  const record = (key: string, operation: string, id: number, hoursAgo: number) => ({
    org_id: 1,
    key,
    operation,
    request_hash: `h-${operation}`,
    status: 200,
    reply: reply(id),
    created_at: new Date(Date.now() - hoursAgo * 3_600_000),
  });
  const keyOf = (key: string, operation: string): OperationKey => ({ orgId: 1, key, operation, hash: `h-${operation}`, ttlHours: 24 });

  it('moves the live records in; a key two services recorded goes to the earlier, and each still replays its own', async () => {
    const partners = createDb(database.url, 'partners', 2);
    const catalog = createDb(database.url, 'catalog', 2);
    dbs.push(partners, catalog);
    await migrate(partners, 'partners', before);
    await migrate(catalog, 'catalog', before);
    await partners('idempotency').insert([
      record('shared', 'partners.partner.create', 1, 2),
      record('only-partners', 'partners.partner.create', 2, 1),
    ]);
    await catalog('idempotency').insert([
      record('shared', 'catalog.product.create', 3, 3),
      record('only-catalog', 'catalog.product.create', 4, 1),
    ]);

    await Promise.all([migrate(partners, 'partners', runtimeMigrations), migrate(catalog, 'catalog', runtimeMigrations)]);

    expect(await partners(OPERATION_KEYS).orderBy('key').select('key', 'operation')).toEqual([
      { key: 'only-catalog', operation: 'catalog.product.create' },
      { key: 'only-partners', operation: 'partners.partner.create' },
      { key: 'shared', operation: 'catalog.product.create' },
    ]);
    // Each service answers its own earlier request as it did; another request under a key is refused.
    expect(await findRecorded(partners, keyOf('shared', 'partners.partner.create'))).toMatchObject({ reply: JSON.parse(reply(1)) });
    expect(await findRecorded(catalog, keyOf('shared', 'catalog.product.create'))).toMatchObject({ reply: JSON.parse(reply(3)) });
    expect(await findRecorded(partners, keyOf('only-catalog', 'partners.partner.create'))).toMatchObject({
      operation: 'catalog.product.create',
    });
    expect(await findRecorded(partners, keyOf('unknown', 'partners.partner.create'))).toBeUndefined();
  });
});
