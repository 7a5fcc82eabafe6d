import { randomUUID } from 'node:crypto';
import { createDb, migrate, type Knex } from '../src/db';
import { OPERATION_KEYS } from '../src/idempotency';
import { purgeExpired } from '../src/retention';
import { runtimeMigrations } from '../src/runtime-migrations';
import { createTestDatabase, type TestDatabase } from '@bo/testkit';

describe('retention purge', () => {
  let database: TestDatabase;
  let db: Knex;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'svc', 4);
    await migrate(db, 'svc', runtimeMigrations);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  const ago = (hours: number) => db.raw(`now() - make_interval(hours => ?)`, [hours]);
  const outbox = (publishedHoursAgo: number | null) => ({
    event_id: randomUUID(),
    type: 't',
    org_id: 1,
    envelope: '{}',
    published_at: publishedHoursAgo === null ? null : ago(publishedHoursAgo),
  });

  it('deletes what is past its window, in batches, and keeps the rest', async () => {
    await db('outbox').insert([
      ...Array.from({ length: 7 }, () => outbox(30)),
      outbox(1),
      outbox(null),
      { ...outbox(null), created_at: ago(1000) },
    ]);
    await db('inbox').insert([
      ...Array.from({ length: 5 }, () => ({ consumer: 'c', event_id: randomUUID(), type: 't', processed_at: ago(200) })),
      { consumer: 'c', event_id: randomUUID(), type: 't', processed_at: ago(100) },
    ]);
    await db('idempotency').insert([
      ...Array.from({ length: 3 }, (_, i) => ({
        org_id: 1,
        key: `old-${i}`,
        operation: 'op',
        request_hash: 'h',
        status: 200,
        reply: '{}',
        created_at: ago(25),
      })),
      { org_id: 1, key: 'fresh', operation: 'op', request_hash: 'h', status: 200, reply: '{}' },
    ]);
    await db(OPERATION_KEYS).insert([
      ...Array.from({ length: 3 }, (_, i) => ({
        org_id: 1,
        key: `old-${i}`,
        operation: 'op',
        request_hash: 'h',
        status: 200,
        reply: '{}',
        created_at: ago(25),
      })),
      { org_id: 1, key: 'fresh', operation: 'op', request_hash: 'h', status: 200, reply: '{}' },
    ]);
    const removed = await purgeExpired(db, { outboxHours: 24, inboxHours: 168, idempotencyHours: 24, batchSize: 2 });
    expect(removed).toEqual({ outbox: 7, inbox: 5, idempotency: 3, [OPERATION_KEYS]: 3 });
    // Unpublished events stay however old: they still have to go out.
    expect(await db('outbox').count({ n: '*' })).toEqual([{ n: 3 }]);
    expect(await db('outbox').whereNull('published_at').count({ n: '*' })).toEqual([{ n: 2 }]);
    expect(await db('inbox').count({ n: '*' })).toEqual([{ n: 1 }]);
    expect((await db('idempotency').select('key')).map((r) => r.key)).toEqual(['fresh']);
    expect((await db(OPERATION_KEYS).select('key')).map((r) => r.key)).toEqual(['fresh']);
    expect(await purgeExpired(db, { outboxHours: 24, inboxHours: 168, idempotencyHours: 24, batchSize: 2 })).toEqual({
      outbox: 0,
      inbox: 0,
      idempotency: 0,
      [OPERATION_KEYS]: 0,
    });
  });

  it('lets two instances purge at once: each row deleted by one of them, none left, neither waiting on the other', async () => {
    const other = createDb(database.url, 'svc', 4);
    try {
      await db('inbox').insert(
        Array.from({ length: 1200 }, () => ({ consumer: 'c2', event_id: randomUUID(), type: 't', processed_at: ago(200) })),
      );
      const windows = { outboxHours: 24, inboxHours: 168, idempotencyHours: 24, batchSize: 50 };
      const [a, b] = await Promise.all([purgeExpired(db, windows), purgeExpired(other, windows)]);
      expect(a.inbox! + b.inbox!).toBe(1200);
      expect(await db('inbox').where({ consumer: 'c2' }).count({ n: '*' })).toEqual([{ n: 0 }]);
    } finally {
      await other.destroy();
    }
  });
});
