import { randomUUID } from 'node:crypto';
import { invoicing } from '@bo/contracts';
import { applyInboxBatch, createLogger, purgeExpired } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { catalogService } from '../src';
import { documentStockConsumer } from '../src/document/document-stock.consumer';
import { checkingReplies, defaultLocationId, expectOutboxToMatchContracts, ok, refusal } from './helpers';

/** Stock follows validated documents: catalog applies `invoicing.invoice.validated` as ledger moves. */
describe('catalog stock following validated documents (integration)', () => {
  let svc: testing.TestService;
  let defaultLoc: string;
  let north: string;
  let nextInvoice = 100;
  beforeAll(async () => {
    svc = checkingReplies(await testing.startTestService(catalogService));
    defaultLoc = await defaultLocationId(svc);
    north = ok(await svc.call('catalog.warehouse.create', { action: 'create_warehouse', name: 'North' })).warehouse.id;
    north = ok(await svc.call('catalog.location.list', { action: 'list_locations' })).locations.find(
      (l: { warehouse_id: string }) => l.warehouse_id === north,
    ).location_id;
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const product = async (payload: Record<string, unknown> = {}) =>
    ok(await svc.call('catalog.product.create', { name: 'Widget', ...payload })).product as { id: number };
  const details = async (id: number) => ok(await svc.call('catalog.stock.details', { action: 'stock_details', product_id: id }));
  const quantities = async (id: number) =>
    Object.fromEntries(
      (await details(id)).stock_details.map((d: { location_id: string; stock_quantity: number }) => [d.location_id, d.stock_quantity]),
    );

  type Line = { product_id: string | number; quantity: number; location_id?: string; variant_id?: string };
  /** The event invoicing publishes when it validates an invoice. */
  function validated(invoicetype: (typeof invoicing.invoiceTypes)[number], lines: Line[]) {
    const id = ++nextInvoice;
    const data = {
      invoice_id: id,
      invoicenumber: `DOC-${id}`,
      invoicetype,
      partner_id: 1,
      invoicetotal: 10,
      sourcetype: null,
      sourceid: null,
      sourcenumber: null,
      journal_entry_id: id,
      invoicedatetime: '2026-01-05T10:00:00',
      invoicedue: null,
      validated_at: '2026-01-05T10:00:00',
      lines: lines.map((l, i) => ({
        line_id: i + 1,
        product_id: String(l.product_id),
        variant_id: l.variant_id ?? null,
        location_id: l.location_id ?? null,
        quantity: l.quantity,
      })),
    };
    invoicing.invoiceValidated.data.parse(data);
    return data;
  }
  const moveCount = async (reference: string) =>
    Number((await svc.db('stock_moves').where({ reference }).count<{ n: number }[]>({ n: '*' }))[0]?.n);

  it('moves inventory out for a customer invoice at the default location, once however often the event arrives', async () => {
    const p = await product({ stock: 10 });
    const collected = await svc.collect(['catalog.stock.adjusted']);
    const data = validated('invoiceout', [
      { product_id: p.id, quantity: 3 },
      { product_id: p.id, quantity: 1.5 },
    ]);
    const id = randomUUID();
    await svc.publish(invoicing.invoiceValidated.type, 1, data, id);
    await testing.eventually(async () => expect(await quantities(p.id)).toEqual({ [defaultLoc]: 5.5 }));
    // The very same event again (a redelivery): the inbox absorbs it. A later event proves it was handled.
    await svc.publish(invoicing.invoiceValidated.type, 1, data, id);
    const marker = await product({ stock: 1 });
    await svc.publish(invoicing.invoiceValidated.type, 1, validated('invoiceout', [{ product_id: marker.id, quantity: 1 }]));
    await testing.eventually(async () => expect(await quantities(marker.id)).toEqual({}));
    await testing.eventually(async () =>
      expect(Number((await svc.db('inbox').where({ consumer: 'catalog.documents' }).count<{ n: number }[]>({ n: '*' }))[0]?.n)).toBe(2),
    );
    expect(await quantities(p.id)).toEqual({ [defaultLoc]: 5.5 });
    expect(await moveCount(data.invoicenumber)).toBe(1);

    const d = await details(p.id);
    expect(d.recent_moves[0]).toMatchObject({
      source: 'document',
      adjustment_type: 'invoiceout',
      reference: data.invoicenumber,
      total_change: -4.5,
      document: { type: 'invoiceout', id: data.invoice_id, number: data.invoicenumber },
      lines: [{ location_id: defaultLoc, previous_stock: 10, new_stock: 5.5, change: -4.5 }],
    });
    await testing.eventually(async () =>
      expect(collected.some((e) => (e.data as { reference: string }).reference === data.invoicenumber)).toBe(true),
    );
    await expectOutboxToMatchContracts(svc);
  });

  it("moves a document's stock once even when its event comes back after the inbox forgot it, by id or as a new event", async () => {
    const p = await product({ stock: 10 });
    const data = validated('invoiceout', [{ product_id: p.id, quantity: 3, location_id: north }]);
    const id = randomUUID();
    await svc.publish(invoicing.invoiceValidated.type, 1, data, id);
    await testing.eventually(async () => expect(await quantities(p.id)).toEqual({ [defaultLoc]: 10, [north]: -3 }));
    const ledger = async () => ({
      quantities: await quantities(p.id),
      moves: await svc.db('stock_moves').where({ product_id: p.id }).orderBy('id'),
      lines: await svc.db('stock_move_lines').where({ product_id: p.id }).orderBy('id'),
      outbox: await svc
        .db('outbox')
        .whereRaw(`envelope->'data'->>'product_id' = ?`, [String(p.id)])
        .count<{ n: string }[]>({ n: '*' }),
    });
    const before = await ledger();

    // The retention purge forgets every processed event id (a window of 0 hours), then the same
    // event arrives again, and the same document under a new event id (as a replay re-published would).
    const purged = await purgeExpired(svc.db, { outboxHours: 1000, inboxHours: 0, idempotencyHours: 1000, batchSize: 500 });
    expect(purged['inbox']).toBeGreaterThan(0);
    expect(await svc.db('inbox').where({ consumer: 'catalog.documents' })).toEqual([]);
    await svc.publish(invoicing.invoiceValidated.type, 1, data, id);
    await svc.publish(invoicing.invoiceValidated.type, 1, data, randomUUID());
    // A later event proves both were handled (the inbox records every event it took).
    const marker = await product({ stock: 1 });
    await svc.publish(invoicing.invoiceValidated.type, 1, validated('invoiceout', [{ product_id: marker.id, quantity: 1 }]));
    await testing.eventually(async () => expect(await quantities(marker.id)).toEqual({}));
    await testing.eventually(async () =>
      expect(Number((await svc.db('inbox').where({ consumer: 'catalog.documents' }).count<{ n: string }[]>({ n: '*' }))[0]?.n)).toBe(3),
    );
    expect(await ledger()).toEqual(before);
  });

  it('brings stock in for a vendor bill and a customer return, takes it out for a vendor credit, at the line location', async () => {
    const p = await product();
    await svc.publish(invoicing.invoiceValidated.type, 1, validated('invoicein', [{ product_id: p.id, quantity: 20, location_id: north }]));
    await testing.eventually(async () => expect(await quantities(p.id)).toEqual({ [north]: 20 }));
    await svc.publish(invoicing.invoiceValidated.type, 1, validated('creditout', [{ product_id: p.id, quantity: 2 }]));
    await testing.eventually(async () => expect(await quantities(p.id)).toEqual({ [defaultLoc]: 2, [north]: 20 }));
    await svc.publish(invoicing.invoiceValidated.type, 1, validated('creditin', [{ product_id: p.id, quantity: 5, location_id: north }]));
    await testing.eventually(async () => expect(await quantities(p.id)).toEqual({ [defaultLoc]: 2, [north]: 15 }));
  });

  it('may drive a location below zero, shows it and announces it; adjustments still may not', async () => {
    const p = await product({ stock: 1 });
    const negative = await svc.collect(['catalog.stock.negative']);
    const data = validated('invoiceout', [{ product_id: p.id, quantity: 4 }]);
    await svc.publish(invoicing.invoiceValidated.type, 1, data);
    await testing.eventually(async () =>
      expect((await details(p.id)).stock_details).toEqual([
        expect.objectContaining({ location_id: defaultLoc, stock_quantity: -3, negative: true }),
      ]),
    );
    expect((await details(p.id)).current_stock).toBe(-3);
    await testing.eventually(async () =>
      expect(negative.map((e) => e.data)).toEqual([
        expect.objectContaining({
          product_id: p.id,
          location_id: defaultLoc,
          quantity: -3,
          document: { type: 'invoiceout', id: data.invoice_id, number: data.invoicenumber },
        }),
      ]),
    );
    expect(
      refusal(await svc.call('catalog.stock.adjust', { action: 'stock_adjustment', product_id: p.id, qty_locations: { [defaultLoc]: -1 } }))
        .status,
    ).toBe(400);
    // Counting the shelf again brings it back to what is there.
    ok(await svc.call('catalog.stock.adjust', { action: 'stock_adjustment', product_id: p.id, qty_locations: { [defaultLoc]: 0 } }));
    expect((await details(p.id)).current_stock).toBe(0);
  });

  it('moves nothing for service products, and the rest of the document still moves', async () => {
    const fee = await product({ name: 'Installation', type: 'service' });
    const goods = await product({ stock: 5 });
    const data = validated('invoiceout', [
      { product_id: fee.id, quantity: 2 },
      { product_id: goods.id, quantity: 1 },
    ]);
    await svc.publish(invoicing.invoiceValidated.type, 1, data);
    await testing.eventually(async () => expect(await quantities(goods.id)).toEqual({ [defaultLoc]: 4 }));
    expect(await svc.db('stock_moves').where({ product_id: fee.id })).toEqual([]);
    expect(await moveCount(data.invoicenumber)).toBe(1);
  });

  it('applies a batch of documents as their events one by one would: one load and one store for all its moves', async () => {
    const goods = await product({ stock: 10 });
    const fee = await product({ name: 'Support', type: 'service' });
    const envelope = (data: ReturnType<typeof validated>) => ({
      id: randomUUID(),
      type: invoicing.invoiceValidated.type,
      occurred_at: '2026-01-05T10:00:00',
      org_id: 1,
      data,
    });
    const batch = [
      validated('invoiceout', [
        { product_id: goods.id, quantity: 4 },
        { product_id: fee.id, quantity: 1 },
      ]),
      validated('invoicein', [{ product_id: goods.id, quantity: 2, location_id: north }]),
      validated('invoiceout', [
        { product_id: 999_999, quantity: 1 },
        { product_id: goods.id, quantity: 1 },
      ]),
      validated('creditout', [{ product_id: fee.id, quantity: 3 }]),
    ].map(envelope);
    const apply = (events: typeof batch) =>
      testing.statementsIn(svc.db, (trx) => applyInboxBatch(documentStockConsumer, trx, events, createLogger('test', 'silent')));
    const statements = await apply(batch);
    expect(await quantities(goods.id)).toEqual({ [defaultLoc]: 5, [north]: 2 });
    expect(await svc.db('stock_moves').where({ product_id: fee.id })).toEqual([]);
    // One read of what the moves are decided on, and one statement for every move, line, quantity
    // and event with the inbox rows, no transaction: nothing runs per document, product or location.
    expect(statements).toHaveLength(2);
    expect(statements.some((sql) => /^(begin|commit|savepoint)/i.test(sql))).toBe(false);
    const stores = statements.filter((sql) => /insert into stock_moves/.test(sql));
    expect(stores).toHaveLength(1);
    expect(stores[0]).toMatch(/insert into stock_move_lines[\s\S]*insert into stock_quantities[\s\S]*insert into outbox/);
    // A batch that moves no stock is its load and its inbox rows: two statements, no transaction.
    const serviceOnly = [
      validated('invoiceout', [{ product_id: fee.id, quantity: 1 }]),
      validated('creditout', [{ product_id: fee.id, quantity: 1 }]),
    ].map(envelope);
    const serviceStatements = await testing.statementsIn(svc.db, (trx) =>
      applyInboxBatch(documentStockConsumer, trx, serviceOnly, createLogger('test', 'silent')),
    );
    expect(serviceStatements).toHaveLength(2);
    expect(serviceStatements.some((sql) => /^(begin|commit|savepoint)/i.test(sql))).toBe(false);
    expect(
      await svc.db('inbox').whereIn(
        'event_id',
        [...batch, ...serviceOnly].map((e) => e.id),
      ),
    ).toHaveLength(6);
  });

  it('decides a batch again when a move of its product commits between its load and its store', async () => {
    const goods = await product({ stock: 10 });
    const adjusted = await svc.collect(['catalog.stock.adjusted']);
    const data = validated('invoiceout', [{ product_id: goods.id, quantity: 3 }]);
    const events = [{ id: randomUUID(), type: invoicing.invoiceValidated.type, occurred_at: '2026-01-05T10:00:00', org_id: 1, data }];
    // Another writer holds the product while the batch loads; its store waits at the product's lock.
    const other = await svc.db.transaction();
    await other('products').where({ id: goods.id }).forUpdate();
    const applied = applyInboxBatch(documentStockConsumer, svc.db, events, createLogger('test', 'silent'));
    await testing.waitUntil(
      async () =>
        Number(
          (
            await svc.db.raw<{ rows: Array<{ n: string }> }>(
              `select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%stock_version = v.read%'`,
            )
          ).rows[0]?.n,
        ) > 0,
    );
    // The other writer counts 5 more onto the shelf (a move, its line and the quantity) and commits.
    const [move] = await other('stock_moves')
      .insert({ org_id: 1, product_id: goods.id, source: 'adjustment', adjustment_type: 'count', reference: 'recount' })
      .returning<Array<{ id: string }>>('id');
    await other('stock_move_lines').insert({
      move_id: move!.id,
      org_id: 1,
      product_id: goods.id,
      location_id: Number(defaultLoc),
      previous_stock: 10,
      new_stock: 15,
      change: 5,
    });
    await other('stock_quantities')
      .where({ product_id: goods.id, location_id: Number(defaultLoc) })
      .update({ quantity: 15 });
    await other.commit();
    await applied;
    // Decided again on the shelf as it then stood: the recount is kept, the document's 3 taken from it.
    expect(await quantities(goods.id)).toEqual({ [defaultLoc]: 12 });
    expect(await moveCount(data.invoicenumber)).toBe(1);
    await testing.eventually(async () =>
      expect(adjusted.filter((e) => e.data.product_id === goods.id).map((e) => e.data.lines)).toEqual([
        [expect.objectContaining({ previous_stock: 15, new_stock: 12, change: -3 })],
      ]),
    );
  });

  it('makes the default location of an organization that has none when its first document moves stock', async () => {
    const org = 4242;
    const goods = ok(await svc.call('catalog.product.create', { name: 'First', type: 'inventory' }, org)).product as { id: number };
    expect(await svc.db('locations').where({ org_id: org })).toEqual([]);
    const data = validated('invoicein', [{ product_id: goods.id, quantity: 2 }]);
    await svc.publish(invoicing.invoiceValidated.type, org, data);
    await testing.eventually(async () => expect(await svc.db('stock_quantities').where({ product_id: goods.id })).toHaveLength(1));
    const [location] = await svc.db('locations').where({ org_id: org, is_default: true });
    expect(await svc.db('stock_quantities').where({ product_id: goods.id }).first()).toMatchObject({
      location_id: location.id,
      quantity: '2.0000',
    });
  });

  it('moves a document named twice in one batch once', async () => {
    const goods = await product({ stock: 10 });
    const data = validated('invoiceout', [{ product_id: goods.id, quantity: 4 }]);
    const twice = [randomUUID(), randomUUID()].map((id) => ({
      id,
      type: invoicing.invoiceValidated.type,
      occurred_at: '2026-01-05T10:00:00',
      org_id: 1,
      data,
    }));
    await svc.db.transaction((trx) => documentStockConsumer.handleBatch!(trx, twice, createLogger('test', 'silent')));
    expect(await quantities(goods.id)).toEqual({ [defaultLoc]: 6 });
    expect(await moveCount(data.invoicenumber)).toBe(1);
  });
});
