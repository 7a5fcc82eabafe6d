import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createDb, migrate, type Knex } from '../src/db';
import { renderMetrics, watchDatabase } from '../src/observability/metrics';
import { runtimeMigrations } from '../src/runtime-migrations';
import { eventually, createTestDatabase, type TestDatabase } from '@bo/testkit';

/** The outbox gauges read on scrape, over a real database. */
describe('outbox gauges on scrape', () => {
  const service = `scrape_${randomUUID().slice(0, 8)}`;
  let database: TestDatabase;
  let db: Knex;
  let unwatch: () => void;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url, 'svc', 2);
    await migrate(db, 'svc', runtimeMigrations);
    unwatch = watchDatabase(service, db, { outbox: true });
  });
  afterAll(async () => {
    unwatch?.();
    await db?.destroy();
    await database?.drop();
  });

  const sample = (text: string, name: string): number | undefined => {
    const line = text.split('\n').find((l) => l.startsWith(`${name}{service="${service}"}`));
    return line === undefined ? undefined : Number(line.split(' ').pop());
  };
  const poolUsed = () => (db.client as { pool: { numUsed(): number } }).pool.numUsed();

  /** Polls until `check` holds (a scrape's reading is shared for a second, so a new one may take that long to show). */
  const settles = (check: () => Promise<void> | void) => eventually(check, { timeoutMs: 5000 });

  it('frees its pooled connection when the outbox is locked, and the scrape still answers without the outbox gauges', async () => {
    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table svc.outbox in access exclusive mode');
      const { body } = await renderMetrics();
      expect(sample(body, 'bo_outbox_pending_events')).toBeUndefined();
      // The query blocked behind the lock is cancelled by its statement timeout instead of holding a pool slot until the lock goes.
      await settles(() => expect(poolUsed()).toBe(0));
      const waiting = await locker.query(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
      expect(waiting.rows[0]).toEqual({ n: 0 });
    } finally {
      await locker.query('rollback');
      await locker.end();
    }
  });

  it('reports the backlog and the age of its oldest unpublished event, whatever older events were published', async () => {
    const ago = (minutes: number) => db.raw(`now() - make_interval(mins => ?)`, [minutes]);
    const row = (createdMinutesAgo: number, published: boolean) => ({
      event_id: randomUUID(),
      type: 't',
      org_id: 1,
      envelope: '{}',
      created_at: ago(createdMinutesAgo),
      published_at: published ? db.fn.now() : null,
    });
    await db('outbox').insert([row(600, true), row(120, false), row(1, false)]);
    await settles(async () => {
      const { body } = await renderMetrics();
      expect(sample(body, 'bo_outbox_pending_events')).toBe(2);
      const oldest = sample(body, 'bo_outbox_oldest_pending_age_seconds')!;
      expect(oldest).toBeGreaterThanOrEqual(120 * 60);
      expect(oldest).toBeLessThan(125 * 60);
    });
  });
});
