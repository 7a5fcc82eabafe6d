import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { undeliveredEvents } from './drain';
import { runtimeMigrations } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { webhooksService } from '@bo/webhooks';

/**
 * The chaos run's oracle for a routed consumer: webhooks' deliveries are owed only the events routed
 * to them, those of a type an enabled endpoint matches, recorded after that endpoint's last change.
 */
describe('the events a routed consumer is owed', () => {
  let migrated: testing.MigratedDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    migrated = await testing.migratedDatabase('webhooks', [...runtimeMigrations, ...webhooksService.migrations], 1);
    pool = new pg.Pool({ connectionString: migrated.database.url, max: 1 });
  });
  afterAll(async () => {
    await pool?.end();
    await migrated?.drop();
  });

  it('counts the events an enabled endpoint was routed and the inbox lacks, and no other', async () => {
    const db = migrated.db;
    const since = new Date('2026-11-26T10:00:00Z');
    const at = (minutes: number) => new Date(since.getTime() + minutes * 60_000);
    const endpoint = { org_id: 1, url: 'https://hooks.example.com/x', secret: 'sealed', updated_at: since };
    await db('endpoints').insert([
      { ...endpoint, events: JSON.stringify(['partners.*']) },
      { ...endpoint, events: JSON.stringify(['catalog.*']), status: 'disabled' },
    ]);
    const event = (type: string, minutes: number) => ({
      event_id: randomUUID(),
      type,
      org_id: 2,
      envelope: JSON.stringify({}),
      created_at: at(minutes),
    });
    const missed = event('partners.partner.created', 1);
    const taken = event('partners.partner.updated', 1);
    await db('outbox').insert([
      missed,
      taken,
      // Before the endpoint: not routed yet.
      event('partners.partner.created', -1),
      // Only a disabled endpoint wants it: unrouted by the next reconcile.
      event('catalog.product.created', 1),
      // No endpoint wants it.
      event('invoicing.invoice.validated', 1),
    ]);
    await db('inbox').insert({ consumer: 'webhooks.deliveries', event_id: taken.event_id, type: taken.type });

    const undelivered = await undeliveredEvents(pool);
    expect(undelivered['webhooks.deliveries']).toEqual({
      count: 1,
      examples: [{ event_id: missed.event_id, type: missed.type, outbox: 'webhooks' }],
    });
  });
});
