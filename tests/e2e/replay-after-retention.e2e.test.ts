import type { EventEnvelope } from '@bo/contracts';
import { AmqpBus, createDb, createLogger, purgeExpired, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { eventually, startTestSystem, type TestSystem } from '../support/system';

/** Organization 1 as user 7. */
const as7 = { org_id: '1', userid: '7' } as const;

/** Every processed event id forgotten, as the retention purge does once INBOX_RETENTION_HOURS have passed. */
const forgetEvents = (db: Knex) => purgeExpired(db, { outboxHours: 1000, inboxHours: 0, idempotencyHours: 1000, batchSize: 500 });

/**
 * Effects are exactly once by what they are, not only by the inbox's memory of event ids: an event
 * delivered again after every consumer's inbox forgot it (an operator moving it back from a dead-letter
 * queue a week later) moves no stock and no balance a second time. Through the gateway, over
 * PostgreSQL and RabbitMQ.
 */
describe('an event replayed after the inbox forgot it', () => {
  let sys: TestSystem;
  const dbs: Record<'invoicing' | 'catalog' | 'partners', Knex> = {} as never;
  let bus: AmqpBus;

  beforeAll(async () => {
    sys = await startTestSystem();
    for (const schema of ['invoicing', 'catalog', 'partners'] as const) dbs[schema] = createDb(sys.databaseUrl, schema, 2);
    bus = new AmqpBus({ url: await testing.testAmqpUrl(), prefix: sys.system.config.BUS_PREFIX, log: createLogger('e2e', 'silent') });
    await bus.connect();
  });
  afterAll(async () => {
    await bus?.close();
    for (const db of Object.values(dbs)) await db.destroy();
    await sys?.stop();
  });

  const stock = async (productId: number) =>
    Object.fromEntries(
      (await sys.client.catalog.stock.details({ ...as7, product_id: productId })).stock_details.map((d) => [
        d.location_id,
        d.stock_quantity,
      ]),
    );
  const balance = async (partnerId: number) =>
    (await dbs.partners('partners').where({ id: partnerId }).first<{ balance: string }>('balance'))?.balance;
  const line = (productId: number, quantity: number) => ({ product_id: productId, quantity, price: 10, tax_rate: 0, tax_included: false });
  const inboxOf = (db: Knex, eventId: string) => db('inbox').where({ event_id: eventId }).select('consumer');

  it('moves stock and the partner balance once for a validated invoice whose event comes back', async () => {
    const customer = (await sys.client.partners.partner.create({ ...as7, partnername: 'Replay Co', partner_type: 'customer' })).partner.id;
    const widget = (await sys.client.catalog.product.create({ ...as7, name: 'Replayed widget', type: 'inventory', stock: 10 })).product.id;
    const sale = (
      await sys.client.invoicing.invoice.create({ ...as7, invoicetype: 'invoiceout', partner: customer, line_items: [line(widget, 3)] })
    ).invoice;
    await sys.client.invoicing.invoice.validate({ ...as7, id: sale.id });
    const event: EventEnvelope = (
      await dbs
        .invoicing('outbox')
        .where({ type: 'invoicing.invoice.validated' })
        .whereRaw("(envelope->'data'->>'invoice_id')::int = ?", [sale.id])
        .first()
    ).envelope;
    await eventually(async () => expect(await inboxOf(dbs.catalog, event.id)).toHaveLength(1));
    await eventually(async () => expect(await inboxOf(dbs.partners, event.id)).toHaveLength(1));
    const before = { stock: await stock(widget), balance: await balance(customer) };
    expect(Number(before.balance)).toBe(30);
    const ledger = async () => ({
      moves: await dbs.catalog('stock_moves').where({ product_id: widget }).orderBy('id'),
      entries: await dbs.partners('partner_transactions').where({ partner_id: customer }).orderBy('id'),
    });
    const rows = await ledger();

    for (const db of [dbs.catalog, dbs.partners]) await forgetEvents(db);
    expect(await inboxOf(dbs.catalog, event.id)).toEqual([]);
    await bus.publish(event);
    // Both consumers took it again (their inboxes record it anew), and it changed nothing.
    await eventually(async () => expect(await inboxOf(dbs.catalog, event.id)).toHaveLength(1));
    await eventually(async () => expect(await inboxOf(dbs.partners, event.id)).toHaveLength(1));
    expect({ stock: await stock(widget), balance: await balance(customer) }).toEqual(before);
    expect(await ledger()).toEqual(rows);
  });
});
