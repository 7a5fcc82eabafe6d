import * as testing from '@bo/testkit';
import { NotAsDecided, storeAlone } from '@bo/runtime';
import { catalogService } from '../src';
import { loadAdjustment, storeAdjustmentAlone } from '../src/stock/adjustment.repository';
import { decideAdjustment } from '../src/stock/decide-adjustment';
import { checkingReplies, expectOutboxToMatchContracts, defaultLocationId, ok, refusal, snapshot } from './helpers';

describe('catalog stock (integration)', () => {
  let svc: testing.TestService;
  let defaultLoc: string;
  let north: { warehouse_id: string; location_id: string };
  beforeAll(async () => {
    svc = checkingReplies(await testing.startTestService(catalogService));
    defaultLoc = await defaultLocationId(svc);
    const wh = ok(await svc.call('catalog.warehouse.create', { action: 'create_warehouse', name: 'North' }));
    north = { warehouse_id: wh.warehouse.id, location_id: wh.location.location_id };
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const product = async (payload: Record<string, unknown> = {}, org = 1) =>
    ok(await svc.call('catalog.product.create', { name: 'Bolt', ...payload }, org)).product as { id: number };
  const adjust = (payload: Record<string, unknown>, org = 1) =>
    svc.call('catalog.stock.adjust', { action: 'stock_adjustment', userid: 'u7', ...payload }, org);

  it('sets target quantities per location as one move with details', async () => {
    const p = await product({ stock: 10 });
    const events = await svc.collect(['catalog.stock.adjusted']);
    const body = ok(
      await adjust({
        product_id: p.id,
        qty_locations: { [defaultLoc]: 7, [north.location_id]: '2.5' },
        adjustment_type: 'increase',
        reference: 'COUNT-1',
        notes: 'yearly count',
      }),
    );
    expect(body.message).toBe('Stock adjusted successfully');
    expect(body.stock_move_id).toMatch(/^\d+$/);
    expect(body.details).toEqual([
      { location_id: defaultLoc, previous_stock: 10, new_stock: 7, change: -3 },
      { location_id: north.location_id, previous_stock: 0, new_stock: 2.5, change: 2.5 },
    ]);
    const move = await svc
      .db('stock_moves')
      .where({ id: Number(body.stock_move_id) })
      .first();
    expect(move).toMatchObject({
      product_id: p.id,
      source: 'adjustment',
      adjustment_type: 'increase',
      reference: 'COUNT-1',
      notes: 'yearly count',
      created_by: 'u7',
    });

    const details = ok(await svc.call('catalog.stock.details', { action: 'stock_details', product_id: p.id }));
    expect(details).toMatchObject({
      product_id: p.id,
      product_name: 'Bolt',
      current_stock: 9.5,
      stock_details: [
        { warehouse_name: 'Main Warehouse', location_id: defaultLoc, location_name: 'Stock', stock_quantity: 7 },
        {
          warehouse_id: north.warehouse_id,
          warehouse_name: 'North',
          location_id: north.location_id,
          location_name: 'Stock',
          stock_quantity: 2.5,
        },
      ],
      min_stock_level: null,
      max_stock_level: null,
    });
    expect(details.last_stock_check).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);

    const moves = ok(await svc.call('catalog.stock.moves', { action: 'stock_moves', product_id: p.id }));
    expect(moves.stock_moves.map((m: { id: string; source: string; total_change: number }) => [m.id, m.source, m.total_change])).toEqual([
      [body.stock_move_id, 'adjustment', -0.5],
      [expect.any(String), 'initial', 10],
    ]);
    expect(moves.stock_moves[0].lines).toEqual([
      {
        location_id: defaultLoc,
        location_name: 'Stock',
        warehouse_id: expect.any(String),
        warehouse_name: 'Main Warehouse',
        previous_stock: 10,
        new_stock: 7,
        change: -3,
      },
      {
        location_id: north.location_id,
        location_name: 'Stock',
        warehouse_id: north.warehouse_id,
        warehouse_name: 'North',
        previous_stock: 0,
        new_stock: 2.5,
        change: 2.5,
      },
    ]);
    expect(moves.pagination).toMatchObject({ total_items: 2, page_number: 1 });

    await testing.waitUntil(() => events.some((e) => e.data.stock_move_id === body.stock_move_id), { timeoutMs: 5000, intervalMs: 25 });
    expect(events.find((e) => e.data.stock_move_id === body.stock_move_id)?.data).toMatchObject({
      product_id: p.id,
      source: 'adjustment',
      adjustment_type: 'increase',
      stock: 9.5,
      reference: 'COUNT-1',
    });
  });

  it('drops a location counted down to zero from the details but keeps it in the moves', async () => {
    const p = await product({ stock: 4 });
    const body = ok(await adjust({ product_id: p.id, qty_locations: { [defaultLoc]: 0 } }));
    expect(body.details).toEqual([{ location_id: defaultLoc, previous_stock: 4, new_stock: 0, change: -4 }]);
    const details = ok(await svc.call('catalog.stock.details', { action: 'stock_details', product_id: p.id }));
    expect([details.current_stock, details.stock_details]).toEqual([0, []]);
  });

  it('shows a product with no moves as holding nothing, never checked', async () => {
    const p = await product();
    const details = ok(await svc.call('catalog.stock.details', { action: 'stock_details', product_id: p.id }));
    expect(details).toMatchObject({ current_stock: 0, stock_details: [], last_stock_check: null });
  });

  it('refuses unknown or foreign locations, negative targets and non-inventory products, all or nothing', async () => {
    const p = await product({ stock: 3 });
    const service = await product({ name: 'Install', type: 'service' });
    const foreignLoc = await defaultLocationId(svc, 2);
    const before = await snapshot(svc);
    expect(refusal(await adjust({ product_id: p.id, qty_locations: { [defaultLoc]: 9, '999999': 1 } }))).toMatchObject({
      status: 400,
      code: 'not_found',
      message: 'Location 999999 not found',
    });
    expect(refusal(await adjust({ product_id: p.id, qty_locations: { [defaultLoc]: 9, [foreignLoc]: 1 } }))).toMatchObject({
      code: 'not_found',
      message: `Location ${foreignLoc} not found`,
    });
    expect(refusal(await adjust({ product_id: p.id, qty_locations: { [defaultLoc]: 9, nowhere: 1 } }))).toMatchObject({
      code: 'not_found',
      message: 'Location nowhere not found',
    });
    const negative = refusal(await adjust({ product_id: p.id, qty_locations: { [defaultLoc]: 9, [north.location_id]: -1 } }));
    expect(negative).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: `qty_locations.${north.location_id}`, message: `qty_locations.${north.location_id} must be at least 0` }],
    });
    expect(refusal(await adjust({ product_id: p.id, qty_locations: {} }))).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'qty_locations' }],
    });
    expect(refusal(await adjust({ product_id: p.id, qty_locations: { [defaultLoc]: 'lots' } }))).toMatchObject({
      code: 'validation_failed',
    });
    expect(refusal(await adjust({ product_id: service.id, qty_locations: { [defaultLoc]: 1 } }))).toMatchObject({
      code: 'invalid_state',
      message: `Product ${service.id} is a service product; only inventory products carry stock`,
    });
    expect(refusal(await adjust({ product_id: 999999, qty_locations: { [defaultLoc]: 1 } }))).toMatchObject({
      code: 'not_found',
      message: 'Product 999999 not found',
    });
    expect(refusal(await adjust({ product_id: p.id, qty_locations: { [foreignLoc]: 1 } }, 2))).toMatchObject({
      code: 'not_found',
      message: `Product ${p.id} not found`,
    });
    expect(await snapshot(svc)).toEqual(before);
  });

  it("keeps other organizations' products out of details and moves", async () => {
    const p = await product({ stock: 1 });
    expect(refusal(await svc.call('catalog.stock.details', { action: 'stock_details', product_id: p.id }, 2)).code).toBe('not_found');
    expect(refusal(await svc.call('catalog.stock.moves', { action: 'stock_moves', product_id: p.id }, 2)).code).toBe('not_found');
  });

  it('pages the move history newest first', async () => {
    const p = await product({ stock: 1 });
    for (const qty of [2, 3, 4]) ok(await adjust({ product_id: p.id, qty_locations: { [defaultLoc]: qty } }));
    const page = ok(await svc.call('catalog.stock.moves', { action: 'stock_moves', product_id: p.id, page_size: 3, page_number: 2 }));
    expect(page.stock_moves.map((m: { source: string; total_change: number }) => [m.source, m.total_change])).toEqual([['initial', 1]]);
    expect(page.pagination).toEqual({ page_number: 2, page_size: 3, total_items: 4, total_pages: 2, has_next: false, has_previous: true });
    const first = ok(await svc.call('catalog.stock.moves', { action: 'stock_moves', product_id: p.id, page_size: 3 }));
    expect(first.stock_moves.map((m: { lines: Array<{ new_stock: number }> }) => m.lines[0]?.new_stock)).toEqual([4, 3, 2]);
  });

  it('stores an adjustment decided on an unlocked read only while no move of the product committed since', async () => {
    const p = await product({ stock: 4 });
    const loc = Number(defaultLoc);
    const decided = async (qty: string) => {
      const state = await loadAdjustment(svc.db, 1, p.id, [loc]);
      const plan = decideAdjustment(state, { qty_locations: { [defaultLoc]: qty } }, { orgId: 1, productId: p.id });
      return { plan, write: { ...storeAdjustmentAlone(plan, state.versions!), events: [], reply: {} } };
    };
    const quantity = async () => Number((await svc.db('stock_quantities').where({ product_id: p.id, location_id: loc }).first()).quantity);

    // Read at 4 and decided to 5; meanwhile an adjustment to 7 commits: the stale one writes nothing.
    const stale = await decided('5');
    ok(await adjust({ product_id: p.id, qty_locations: { [defaultLoc]: 7 } }));
    await expect(storeAlone(svc.db, stale.write, undefined, { ok: true, status: 200, body: {} })).rejects.toBeInstanceOf(NotAsDecided);
    expect(await quantity()).toBe(7);
    expect(await svc.db('stock_moves').where({ id: stale.plan.move.id })).toEqual([]);

    // Any move inserted bumps the version, whoever writes it: here by hand, as code that knows nothing of it would.
    const beforeHandMove = await decided('6');
    await svc.db('stock_moves').insert({ org_id: 1, product_id: p.id, source: 'adjustment', adjustment_type: 'by hand' });
    await expect(storeAlone(svc.db, beforeHandMove.write, undefined, { ok: true, status: 200, body: {} })).rejects.toBeInstanceOf(
      NotAsDecided,
    );

    // Read and stored with nothing in between: the move, its line and the quantity, at the time it was read.
    const fresh = await decided('9');
    await storeAlone(svc.db, fresh.write, undefined, { ok: true, status: 200, body: {} });
    expect(await quantity()).toBe(9);
    const move = await svc.db('stock_moves').where({ id: fresh.plan.move.id }).first();
    expect(move.created_at).toEqual(fresh.plan.move.createdAt);
    expect(await svc.db('stock_move_lines').where({ move_id: fresh.plan.move.id }).select('previous_stock', 'new_stock')).toEqual([
      { previous_stock: '7.0000', new_stock: '9.0000' },
    ]);
  });

  it('never loses an update: 30 concurrent adjustments leave the quantity equal to the sum of the moves', async () => {
    const p = await product({ stock: 0 });
    const targets = Array.from({ length: 30 }, (_, i) => i + 1);
    const replies = await Promise.all(
      targets.map((qty, i) =>
        adjust({ product_id: p.id, qty_locations: i % 2 ? { [defaultLoc]: qty } : { [defaultLoc]: qty, [north.location_id]: 31 - qty } }),
      ),
    );
    expect(replies.every((r) => r.ok)).toBe(true);
    const moveIds = new Set(replies.map((r) => ok(r).stock_move_id));
    expect(moveIds.size).toBe(30);

    const lines = await svc.db('stock_move_lines').where({ product_id: p.id });
    const quantities = await svc.db('stock_quantities').where({ product_id: p.id });
    for (const q of quantities) {
      const ledger = lines.filter((l) => l.location_id === q.location_id).reduce((acc, l) => acc + Number(l.change), 0);
      expect(Number(q.quantity)).toBe(ledger);
    }
    // each line starts from where the previous one of its location ended: a serial history
    const byLocation = new Map<string, Array<{ previous_stock: string; new_stock: string }>>();
    for (const l of lines.sort((a, b) => a.id - b.id))
      byLocation.set(String(l.location_id), [...(byLocation.get(String(l.location_id)) ?? []), l]);
    for (const chain of byLocation.values()) {
      for (let i = 1; i < chain.length; i++) expect(chain[i]?.previous_stock).toBe(chain[i - 1]?.new_stock);
    }
    const details = ok(await svc.call('catalog.stock.details', { action: 'stock_details', product_id: p.id }));
    const total = quantities.reduce((acc, q) => acc + Number(q.quantity), 0);
    expect(details.current_stock).toBe(total);
  });

  it('keeps the ledger append-only in the database itself', async () => {
    const p = await product({ stock: 2 });
    const before = await snapshot(svc);
    await expect(svc.db('stock_moves').where({ product_id: p.id }).update({ notes: 'rewritten' })).rejects.toThrow(
      /append-only: UPDATE on stock_moves/,
    );
    await expect(svc.db('stock_move_lines').where({ product_id: p.id }).delete()).rejects.toThrow(
      /append-only: DELETE on stock_move_lines/,
    );
    await expect(svc.db.raw('truncate stock_move_lines')).rejects.toThrow(/append-only: TRUNCATE/);
    const move = await svc.db('stock_moves').where({ product_id: p.id }).first();
    await expect(
      svc.db('stock_move_lines').insert({
        move_id: move.id,
        org_id: 1,
        product_id: p.id,
        location_id: Number(defaultLoc),
        previous_stock: 2,
        new_stock: 5,
        change: 2,
      }),
    ).rejects.toThrow(/stock_move_lines_consistent/);
    expect(await snapshot(svc)).toEqual(before);
  });

  it('writes only events that hold to their published contracts', async () => {
    // runs last, over every event the tests above made
    expect(await expectOutboxToMatchContracts(svc)).toBeGreaterThan(0);
  });
});
