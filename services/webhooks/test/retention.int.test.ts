import { randomUUID } from 'node:crypto';
import { createDb, createLogger, type Knex } from '@bo/runtime';
import { createTestDatabase, migratedTemplate, serviceMigrations, type TestDatabase } from '@bo/testkit';
import { webhooksService } from '../src';
import { purgeOldDeliveries } from '../src/delivery/log-retention';

/**
 * The log's retention (WEBHOOKS_LOG_RETENTION_DAYS): delivered and failed deliveries that many days
 * after they were made, and the pending ones of an endpoint disabled that long, which nothing would
 * ever send or purge otherwise.
 */
describe('webhook log retention', () => {
  let database: TestDatabase;
  let db: Knex;
  beforeAll(async () => {
    database = await createTestDatabase({ template: await migratedTemplate('webhooks', [serviceMigrations(webhooksService)]) });
    db = createDb(database.url, 'webhooks', 2);
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const endpoint = async (status: 'enabled' | 'disabled', disabledDaysAgo?: number) => {
    const [row] = await db('endpoints')
      .insert({
        org_id: 1,
        url: 'https://127.0.0.1/x',
        events: JSON.stringify(['*']),
        secret: 'sealed',
        status,
        disabled_at: disabledDaysAgo === undefined ? null : db.raw(`now() - make_interval(days => ?)`, [disabledDaysAgo]),
      })
      .returning<Array<{ id: number }>>('id');
    return (row as { id: number }).id;
  };
  const delivery = async (endpointId: number, status: 'pending' | 'delivered' | 'failed', daysAgo: number) => {
    const id = randomUUID();
    await db('deliveries').insert({
      org_id: 1,
      endpoint_id: endpointId,
      event_id: id,
      event_type: 'webhook.ping',
      payload: JSON.stringify({ id }),
      status,
      next_attempt_at: status === 'pending' ? db.fn.now() : null,
      created_at: db.raw(`now() - make_interval(days => ?)`, [daysAgo]),
    });
    return id;
  };

  it('purges the pending deliveries of an endpoint disabled for the retention, and the old log, and nothing else', async () => {
    const longOff = await endpoint('disabled', 31);
    const recentlyOff = await endpoint('disabled', 2);
    const on = await endpoint('enabled');
    await delivery(longOff, 'pending', 40);
    await delivery(longOff, 'pending', 1);
    const kept = [await delivery(recentlyOff, 'pending', 40), await delivery(on, 'pending', 40), await delivery(on, 'delivered', 29)];
    await delivery(on, 'delivered', 31);
    await delivery(on, 'failed', 31);

    expect(await purgeOldDeliveries(db, createLogger('webhooks', 'silent'), 30)).toBe(4);
    expect((await db('deliveries').pluck('event_id')).sort()).toEqual(kept.sort());
  });
});
