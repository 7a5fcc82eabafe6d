import { randomUUID } from 'node:crypto';
import { System } from '@bo/launcher';
import { createDb } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { eventually } from '../support/system';

/**
 * The single-process mode (`npm start` without AMQP_URL): one in-process bus, which keeps no queues
 * of its own. An event a crash left in an outbox is published at the next start only once every
 * consumer has subscribed, so it reaches them all, the webhooks consumer included, routed the types
 * of the endpoints there were when it subscribed.
 */
describe('the single-process system', () => {
  it('delivers an event left in an outbox by a crash to every consumer at the next start', async () => {
    const database = await testing.createTestDatabase();
    const options = { databaseUrl: database.url, port: 0, logLevel: 'silent', env: { OUTBOX_POLL_MS: '100', EVENT_RETRY_BASE_MS: '50' } };
    const partnersDb = createDb(database.url, 'partners', 1);
    const salesDb = createDb(database.url, 'sales', 1);
    const invoicingDb = createDb(database.url, 'invoicing', 1);
    const webhooksDb = createDb(database.url, 'webhooks', 1);
    try {
      const first = await new System(options).start();
      await first.stop();
      // What a process killed between its commit and the relay's publication leaves behind.
      const id = 987654;
      const record = testing.partnerRecord(1, id, { partnername: 'Left Behind', display_name: 'Left Behind', currency: null });
      const eventId = randomUUID();
      const envelope = { id: eventId, type: 'partners.partner.created', occurred_at: '2026-01-01T00:00:00', org_id: 1, data: record };
      await partnersDb('outbox').insert({ event_id: eventId, type: envelope.type, org_id: 1, envelope: JSON.stringify(envelope) });
      // An endpoint that exists before the start: its types are routed when webhooks subscribes,
      // before anything is published (its sending fails, its secret sealing nothing; only the row counts).
      const [endpoint] = await webhooksDb('endpoints')
        .insert({ org_id: 1, url: 'https://receiver.invalid/hooks', events: JSON.stringify(['partners.*']), secret: 'unsealed' })
        .returning<Array<{ id: number }>>('id');

      const second = await new System(options).start();
      try {
        await eventually(async () => {
          expect(await salesDb('partner_directory').where({ org_id: 1, id }).first()).toMatchObject({ partnername: 'Left Behind' });
          expect(await invoicingDb('partner_directory').where({ org_id: 1, id }).first()).toMatchObject({ partnername: 'Left Behind' });
          expect(await webhooksDb('deliveries').where({ event_id: eventId }).first()).toMatchObject({ endpoint_id: endpoint!.id });
        });
      } finally {
        await second.stop();
      }
    } finally {
      await Promise.all([partnersDb.destroy(), salesDb.destroy(), invoicingDb.destroy(), webhooksDb.destroy()]);
      await database.drop();
    }
  });
});
