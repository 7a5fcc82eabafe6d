import * as testing from '@bo/testkit';
import { catalogService } from '../src';
import { checkingReplies, expectOutboxToMatchContracts, ok, refusal, snapshot } from './helpers';

describe('catalog products (integration)', () => {
  let svc: testing.TestService;
  beforeAll(async () => {
    svc = checkingReplies(await testing.startTestService(catalogService));
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const create = (payload: Record<string, unknown>, org = 1) => svc.call('catalog.product.create', { userid: 'u1', ...payload }, org);

  it('creates a product with initial stock at the default location, recorded as a move and events', async () => {
    const events = await svc.collect(['catalog.product.created', 'catalog.stock.adjusted']);
    const body = ok(
      await create({
        name: 'Widget',
        description: 'Blue',
        price: '19.99',
        cost: 7.5,
        sku: 'W-1',
        barcode: '400',
        taxable: true,
        tax_rate: 15,
        uom: 'pcs',
        stock: '12.5',
        min_stock_level: 2,
        max_stock_level: 50,
      }),
    );
    expect(body.message).toBe('Product created successfully');
    expect(body.product).toMatchObject({
      name: 'Widget',
      description: 'Blue',
      price: 19.99,
      cost: 7.5,
      category_id: null,
      sku: 'W-1',
      barcode: '400',
      taxable: true,
      tax_rate: 15,
      type: 'inventory',
      uom: 'pcs',
      stock: 12.5,
      min_stock_level: 2,
      max_stock_level: 50,
    });
    expect(body.product.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    const id = body.product.id as number;

    const moves = await svc.db('stock_moves').where({ product_id: id });
    expect(moves).toHaveLength(1);
    expect(moves[0]).toMatchObject({ source: 'initial', org_id: 1 });
    const [quantity] = await svc.db('stock_quantities').where({ product_id: id });
    const defaultLoc = await svc.db('locations').where({ org_id: 1, is_default: true }).first();
    expect(quantity).toMatchObject({ location_id: defaultLoc.id, quantity: '12.5000' });

    await waitFor(() => events.length >= 2);
    const created = events.find((e) => e.type === 'catalog.product.created');
    expect(created?.data).toMatchObject({ id, sku: 'W-1', stock: 12.5 });
    const adjusted = events.find((e) => e.type === 'catalog.stock.adjusted');
    expect(adjusted?.data).toMatchObject({
      product_id: id,
      source: 'initial',
      stock: 12.5,
      lines: [{ location_id: String(defaultLoc.id), previous_stock: 0, new_stock: 12.5, change: 12.5 }],
    });
  });

  it('places initial stock at the location or warehouse named', async () => {
    const wh = ok(await svc.call('catalog.warehouse.create', { action: 'create_warehouse', name: 'North' }));
    const loc = ok(
      await svc.call('catalog.location.create', { action: 'create_location', warehouse_id: wh.warehouse.id, name: 'Shelf A' }),
    );
    const atLocation = ok(
      await create({ name: 'At shelf', stock: 3, warehouse_id: wh.warehouse.id, location_id: loc.location.location_id }),
    );
    const atWarehouse = ok(await create({ name: 'At warehouse', stock: 4, warehouse_id: wh.warehouse.id }));
    const q1 = await svc.db('stock_quantities').where({ product_id: atLocation.product.id });
    const q2 = await svc.db('stock_quantities').where({ product_id: atWarehouse.product.id });
    expect(q1.map((q) => [String(q.location_id), q.quantity])).toEqual([[loc.location.location_id, '3.0000']]);
    // a warehouse's main location is the one made with it
    expect(q2.map((q) => [String(q.location_id), q.quantity])).toEqual([[wh.location.location_id, '4.0000']]);
  });

  it('refuses a duplicate SKU (any case) on create and on edit, changing nothing', async () => {
    ok(await create({ name: 'First', sku: 'DUP-1' }));
    const other = ok(await create({ name: 'Other', sku: 'OTHER-1' }));
    const before = await snapshot(svc);
    const r1 = refusal(await create({ name: 'Second', sku: 'dup-1 ', stock: 5 }));
    expect(r1).toMatchObject({ status: 400, code: 'duplicate', message: 'SKU dup-1 already exists' });
    const r2 = refusal(await svc.call('catalog.product.edit', { product_id: other.product.id, sku: 'DUP-1', name: 'Renamed' }));
    expect(r2).toMatchObject({ status: 400, code: 'duplicate', message: 'SKU DUP-1 already exists' });
    expect(await snapshot(svc)).toEqual(before);
  });

  it('refuses a SKU held by a variant', async () => {
    const parent = ok(await create({ name: 'Shirt', sku: 'SHIRT' }));
    ok(
      await svc.call('catalog.variant.create', {
        action: 'create_variant',
        parent_product_id: parent.product.id,
        variant_name: 'Shirt M',
        options: { size: 'M' },
        sku: 'SHIRT-M',
      }),
    );
    const before = await snapshot(svc);
    expect(refusal(await create({ name: 'Clash', sku: 'SHIRT-M' })).message).toBe('SKU SHIRT-M already exists');
    expect(await snapshot(svc)).toEqual(before);
  });

  it('frees the SKU of a deleted product and its variants', async () => {
    const p = ok(await create({ name: 'Old', sku: 'FREE-1', stock: 2 }));
    ok(
      await svc.call('catalog.variant.create', {
        action: 'create_variant',
        parent_product_id: p.product.id,
        variant_name: 'Old L',
        options: { size: 'L' },
        sku: 'FREE-1-L',
      }),
    );
    const events = await svc.collect(['catalog.product.deleted']);
    expect(ok(await svc.call('catalog.product.delete', { product_id: p.product.id, delete: true }))).toEqual({
      message: 'Product deleted successfully',
    });
    ok(await create({ name: 'New', sku: 'FREE-1' }));
    ok(await create({ name: 'New L', sku: 'FREE-1-L' }));
    // gone from lists and lookups, history kept
    const listed = ok(await svc.call('catalog.product.list', { search: 'Old' }));
    expect(listed.products).toEqual([]);
    expect(refusal(await svc.call('catalog.product.edit', { product_id: p.product.id, name: 'x' }))).toMatchObject({
      code: 'not_found',
      message: `Product ${p.product.id} not found`,
    });
    expect(refusal(await svc.call('catalog.product.delete', { product_id: p.product.id, delete: true })).code).toBe('not_found');
    expect(await svc.db('stock_moves').where({ product_id: p.product.id })).toHaveLength(1);
    await waitFor(() => events.length >= 1);
    expect(events[0]?.data).toMatchObject({ id: p.product.id, name: 'Old', stock: 2 });
  });

  it('lets two concurrent creates with one SKU make exactly one product', async () => {
    const replies = await Promise.all([create({ name: 'Race A', sku: 'RACE' }), create({ name: 'Race B', sku: 'RACE' })]);
    expect(replies.filter((r) => r.ok)).toHaveLength(1);
    expect(refusal(replies.find((r) => !r.ok)!).message).toBe('SKU RACE already exists');
    expect(await svc.db('products').where({ sku: 'RACE' })).toHaveLength(1);
  });

  it('refuses two products swapping SKUs concurrently as duplicates, as in any serial order, never a deadlock', async () => {
    for (let round = 0; round < 20; round++) {
      const a = ok(await create({ name: `Swap A${round}`, sku: `SWAP-A${round}` })).product;
      const b = ok(await create({ name: `Swap B${round}`, sku: `SWAP-B${round}` })).product;
      const replies = await Promise.all([
        svc.call('catalog.product.edit', { product_id: a.id, sku: `SWAP-B${round}` }),
        svc.call('catalog.product.edit', { product_id: b.id, sku: `SWAP-A${round}` }),
      ]);
      // run one after the other, each edit finds its new SKU still held by the other product
      expect(replies.map((r) => (r.ok ? 'ok' : `${r.status} ${r.code}`))).toEqual(['400 duplicate', '400 duplicate']);
      const skus = await svc.db('skus').whereIn('owner_id', [a.id, b.id]).where({ owner_kind: 'product' }).orderBy('sku_key');
      const products = await svc.db('products').whereIn('id', [a.id, b.id]);
      // the registry and the products agree: every product's SKU is claimed by that product
      expect(
        products
          .filter((p) => p.sku)
          .map((p) => [p.sku.toLowerCase(), p.id])
          .sort(),
      ).toEqual(skus.map((s) => [s.sku_key, s.owner_id]).sort());
    }
  });

  it("refuses an unknown category, another org's category, bad stock levels and stock on a service, changing nothing", async () => {
    const foreign = ok(await svc.call('catalog.category.create', { name: 'Theirs' }, 2));
    const before = await snapshot(svc);
    expect(refusal(await create({ name: 'X', category_id: '999999' }))).toMatchObject({
      code: 'not_found',
      message: 'Category 999999 not found',
    });
    expect(refusal(await create({ name: 'X', category_id: foreign.category.id }))).toMatchObject({ code: 'not_found' });
    expect(refusal(await create({ name: 'X', category_id: 'abc' }))).toMatchObject({
      code: 'not_found',
      message: 'Category abc not found',
    });
    expect(refusal(await create({ name: 'X', min_stock_level: 5, max_stock_level: 4 }))).toMatchObject({
      code: 'validation_failed',
      message: 'min_stock_level 5 must not exceed max_stock_level 4',
    });
    const svcStock = refusal(await create({ name: 'Repair', type: 'service', stock: 1 }));
    expect(svcStock).toMatchObject({ code: 'validation_failed', errors: [{ field: 'stock' }] });
    expect(refusal(await create({ name: 'X', type: 'gadget' }))).toMatchObject({ code: 'validation_failed', errors: [{ field: 'type' }] });
    expect(refusal(await create({ name: 'X', stock: -1 }))).toMatchObject({ code: 'validation_failed', errors: [{ field: 'stock' }] });
    expect(refusal(await create({ name: 'X', price: '1.234' }))).toMatchObject({ code: 'validation_failed', errors: [{ field: 'price' }] });
    expect(refusal(await create({ name: '  ' }))).toMatchObject({ code: 'validation_failed', errors: [{ field: 'name' }] });
    expect(refusal(await create({ name: 'X', stock: 1, location_id: '424242' }))).toMatchObject({
      code: 'not_found',
      message: 'Location 424242 not found',
    });
    expect(refusal(await create({ name: 'X', stock: 1, warehouse_id: '424242' }))).toMatchObject({
      code: 'not_found',
      message: 'Warehouse 424242 not found',
    });
    expect(await snapshot(svc)).toEqual(before);
  });

  it('accepts service and consumable products without stock', async () => {
    const s = ok(await create({ name: 'Install', type: 'service', price: 80 }));
    const c = ok(await create({ name: 'Glue', type: 'consumable', stock: 0 }));
    expect([s.product.type, s.product.stock, c.product.type, c.product.stock]).toEqual(['service', 0, 'consumable', 0]);
    expect(await svc.db('stock_moves').whereIn('product_id', [s.product.id, c.product.id])).toEqual([]);
  });

  it('edits fields and sets the total stock through the default location', async () => {
    const cat = ok(await svc.call('catalog.category.create', { name: 'Tools', code: 'TOOLS' }));
    const p = ok(await create({ name: 'Hammer', price: 10, stock: 6, sku: 'HAM' }));
    const id = p.product.id as number;
    // 4 more somewhere else
    const wh = ok(await svc.call('catalog.warehouse.create', { action: 'create_warehouse', name: 'South' }));
    ok(
      await svc.call('catalog.stock.adjust', {
        action: 'stock_adjustment',
        product_id: id,
        qty_locations: { [wh.location.location_id]: 4 },
      }),
    );

    const events = await svc.collect(['catalog.product.updated']);
    const edited = ok(
      await svc.call('catalog.product.edit', {
        product_id: id,
        name: 'Claw hammer',
        price: '12.50',
        category_id: cat.category.id,
        stock: 15,
        sku: 'ham',
        max_stock_level: 100,
      }),
    );
    expect(edited.message).toBe('Product updated successfully');
    expect(edited.product).toMatchObject({
      id,
      name: 'Claw hammer',
      price: 12.5,
      category_id: cat.category.id,
      category: 'Tools',
      stock: 15,
      sku: 'ham',
      max_stock_level: 100,
    });
    expect(edited.product.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    const defaultLoc = await svc.db('locations').where({ org_id: 1, is_default: true }).first();
    const atDefault = await svc.db('stock_quantities').where({ product_id: id, location_id: defaultLoc.id }).first();
    expect(atDefault.quantity).toBe('11.0000');
    const lastMove = await svc.db('stock_moves').where({ product_id: id }).orderBy('id', 'desc').first();
    expect(lastMove.source).toBe('product_edit');
    const lines = await svc.db('stock_move_lines').where({ move_id: lastMove.id });
    expect(lines.map((l) => [l.previous_stock, l.new_stock, l.change])).toEqual([['6.0000', '11.0000', '5.0000']]);

    // the same total again moves nothing
    ok(await svc.call('catalog.product.edit', { product_id: id, stock: 15 }));
    expect(await svc.db('stock_moves').where({ product_id: id })).toHaveLength(3);
    await waitFor(() => events.length >= 2);
    expect(events[0]?.data).toMatchObject({ id, name: 'Claw hammer', stock: 15 });

    // clearing the category
    expect(ok(await svc.call('catalog.product.edit', { product_id: id, category_id: null })).product).toMatchObject({
      category_id: null,
      category: null,
    });
  });

  it('counts each change of a product in its version, 1 when made, in its replies and events, so a receiver keeps the newest', async () => {
    const events = await svc.collect(['catalog.product.created', 'catalog.product.updated', 'catalog.product.deleted']);
    const made = ok(await create({ name: 'Versioned', stock: 1 })).product;
    expect(made.version).toBe(1);
    expect(ok(await svc.call('catalog.product.edit', { product_id: made.id, name: 'Versioned twice' })).product.version).toBe(2);
    // A refused edit changes nothing, its version included.
    refusal(await svc.call('catalog.product.edit', { product_id: made.id, min_stock_level: 5, max_stock_level: 1 }));
    expect(ok(await svc.call('catalog.product.edit', { product_id: made.id, price: 3 })).product.version).toBe(3);
    ok(await svc.call('catalog.product.delete', { product_id: made.id, delete: true }));
    await waitFor(() => events.filter((e) => e.data.id === made.id).length >= 4);
    expect(events.filter((e) => e.data.id === made.id).map((e) => [e.type, e.data.version])).toEqual([
      ['catalog.product.created', 1],
      ['catalog.product.updated', 2],
      ['catalog.product.updated', 3],
      ['catalog.product.deleted', 4],
    ]);
    expect((await svc.db('products').where({ id: made.id }).first()).version).toBe(4);
  });

  it("names the edited product (its new SKU) in the event of an edit's stock move", async () => {
    const p = ok(await create({ name: 'Rename me', sku: 'OLD-SKU', stock: 1 }));
    const events = await svc.collect(['catalog.stock.adjusted', 'catalog.product.updated']);
    ok(await svc.call('catalog.product.edit', { product_id: p.product.id, sku: 'NEW-SKU', stock: 4 }));
    await waitFor(() => events.length >= 2);
    expect(events.map((e) => [e.type, e.data.sku])).toEqual([
      ['catalog.product.updated', 'NEW-SKU'],
      ['catalog.stock.adjusted', 'NEW-SKU'],
    ]);
  });

  it("writes a product's own event before the event of the stock move it made", async () => {
    const p = ok(await create({ name: 'Ordered', stock: 2 })).product;
    ok(await svc.call('catalog.product.edit', { product_id: p.id, stock: 3 }));
    const rows: Array<{ type: string }> = await svc
      .db('outbox')
      .whereRaw("envelope->'data'->>'id' = ? or envelope->'data'->>'product_id' = ?", [String(p.id), String(p.id)])
      .orderBy('id')
      .select('type');
    // the relay publishes in this order, so a consumer meets the product before any move of it
    expect(rows.map((r) => r.type)).toEqual([
      'catalog.product.created',
      'catalog.stock.adjusted',
      'catalog.product.updated',
      'catalog.stock.adjusted',
    ]);
  });

  it('clears text fields given as null or empty on edit, freeing a cleared SKU', async () => {
    const p = ok(
      await create({
        name: 'Clearable',
        description: 'Long text',
        sku: 'CLR-1',
        barcode: '777',
        image: 'https://img.example/c.png',
        uom: 'kg',
      }),
    );
    const edited = ok(
      await svc.call('catalog.product.edit', {
        product_id: p.product.id,
        description: null,
        sku: null,
        barcode: '',
        image: null,
        uom: null,
      }),
    );
    expect(edited.product).toMatchObject({ description: null, sku: null, barcode: null, image: null, uom: null, name: 'Clearable' });
    expect(ok(await create({ name: 'Takes the SKU', sku: 'clr-1' })).product.sku).toBe('clr-1');
    // absent fields stay as they are
    const again = ok(await svc.call('catalog.product.edit', { product_id: p.product.id, barcode: '888' }));
    expect(again.product).toMatchObject({ description: null, sku: null, barcode: '888' });
    expect(ok(await create({ name: 'Blank description', description: '' })).product.description).toBeNull();
  });

  it('refuses edits that cannot hold, changing nothing', async () => {
    const p = ok(await create({ name: 'Saw', stock: 2, min_stock_level: 1 }));
    const id = p.product.id as number;
    const wh = ok(await svc.call('catalog.warehouse.create', { action: 'create_warehouse', name: 'East' }));
    ok(
      await svc.call('catalog.stock.adjust', {
        action: 'stock_adjustment',
        product_id: id,
        qty_locations: { [wh.location.location_id]: 5 },
      }),
    );
    const before = await snapshot(svc);
    expect(refusal(await svc.call('catalog.product.edit', { product_id: id, stock: 4, name: 'Changed' }))).toMatchObject({
      code: 'validation_failed',
      message: 'stock 4 is below the 5 held outside the default location; use stock_adjustment for those locations',
      errors: [{ field: 'stock' }],
    });
    expect(refusal(await svc.call('catalog.product.edit', { product_id: id, type: 'service', name: 'Changed' }))).toMatchObject({
      code: 'invalid_state',
    });
    expect(refusal(await svc.call('catalog.product.edit', { product_id: id, max_stock_level: 0.5 }))).toMatchObject({
      code: 'validation_failed',
      message: 'min_stock_level 1 must not exceed max_stock_level 0.5',
    });
    expect(refusal(await svc.call('catalog.product.edit', { product_id: id, category_id: '31337' }))).toMatchObject({ code: 'not_found' });
    expect(refusal(await svc.call('catalog.product.edit', { product_id: 999999, name: 'x' }))).toMatchObject({
      code: 'not_found',
      message: 'Product 999999 not found',
    });
    expect(refusal(await svc.call('catalog.product.edit', { product_id: id, name: 'Theirs' }, 2))).toMatchObject({ code: 'not_found' });
    expect(refusal(await svc.call('catalog.product.delete', { product_id: id, delete: true }, 2))).toMatchObject({ code: 'not_found' });
    expect(await snapshot(svc)).toEqual(before);
  });

  it('joins only rows of the organization, even where a row points across organizations', async () => {
    const theirs = ok(await svc.call('catalog.category.create', { name: 'Their secret category' }, 2)).category;
    const p = ok(await create({ name: 'Cross-linked', stock: 1 })).product;
    ok(await svc.call('catalog.location.list', { action: 'list_locations' }, 2));
    const theirLoc = await svc.db('locations').where({ org_id: 2, is_default: true }).first();
    // rows no handler writes: a product of org 1 pointing at org 2's category, its stock at org 2's location
    await svc
      .db('products')
      .where({ id: p.id })
      .update({ category_id: Number(theirs.id) });
    await svc.db('stock_quantities').insert({ org_id: 2, product_id: p.id, location_id: theirLoc.id, quantity: '50' });
    const listed = ok(await svc.call('catalog.product.list', { search: 'Cross-linked' })).products;
    expect(listed.map((x: { category: string | null; stock: number }) => [x.category, x.stock])).toEqual([[null, 1]]);
    const details = ok(await svc.call('catalog.stock.details', { action: 'stock_details', product_id: p.id }));
    expect([details.current_stock, details.stock_details.map((d: { warehouse_name: string }) => d.warehouse_name)]).toEqual([
      1,
      ['Main Warehouse'],
    ]);
    await svc.db('stock_quantities').where({ org_id: 2, product_id: p.id }).delete();
    await svc.db('products').where({ id: p.id }).update({ category_id: null });
  });

  it('answers the internal lookup with the live products, variants and locations of the organization only', async () => {
    const p = ok(await create({ name: 'Lookup', sku: 'LOOK', price: 4.5, stock: 3, uom: 'kg' })).product;
    const v = ok(
      await svc.call('catalog.variant.create', {
        action: 'create_variant',
        parent_product_id: p.id,
        variant_name: 'Lookup XL',
        options: { size: 'XL' },
        price: 5,
        sku: 'LOOK-XL',
      }),
    ).variant;
    const loc = ok(await svc.call('catalog.location.list', { action: 'list_locations' })).locations[0].location_id;
    const ask = (org = 1) =>
      svc.call('catalog.lookup', { product_ids: [p.id, 999999], variant_ids: [v.id, 999998], location_ids: [loc, '999997', 'x'] }, org);
    expect(ok(await ask())).toEqual({
      message: 'Catalog records found',
      products: [
        {
          id: p.id,
          name: 'Lookup',
          description: null,
          price: 4.5,
          sku: 'LOOK',
          uom: 'kg',
          type: 'inventory',
          tax_rate: 0,
          tax_category: null,
        },
      ],
      // A variant without tax defaults of its own takes its product's.
      variants: [
        { id: v.id, parent_product_id: p.id, variant_name: 'Lookup XL', price: 5, sku: 'LOOK-XL', tax_rate: null, tax_category: null },
      ],
      locations: [expect.objectContaining({ location_id: loc, is_default: true })],
    });
    expect(ok(await ask(2))).toMatchObject({ products: [], variants: [], locations: [] });
    ok(await svc.call('catalog.product.delete', { product_id: p.id, delete: true }));
    // A deleted product takes its variants with it.
    expect(ok(await ask())).toMatchObject({ products: [], variants: [], locations: [expect.objectContaining({ location_id: loc })] });
  });

  it('lists with category name, summed stock, search, filters, sorting and pages, per organization', async () => {
    const org = 3;
    const parent = ok(await svc.call('catalog.category.create', { name: 'Drinks' }, org));
    const child = ok(await svc.call('catalog.category.create', { name: 'Juice', parent_id: parent.category.id }, org));
    const a = ok(
      await create({ name: 'Apple juice', sku: 'AJ-1', barcode: '111', price: 3, category_id: child.category.id, stock: 5 }, org),
    );
    const wh = ok(await svc.call('catalog.warehouse.create', { action: 'create_warehouse', name: 'Cellar' }, org));
    ok(
      await svc.call(
        'catalog.stock.adjust',
        { action: 'stock_adjustment', product_id: a.product.id, qty_locations: { [wh.location.location_id]: '2.25' } },
        org,
      ),
    );
    ok(await create({ name: 'Water', sku: 'WAT', barcode: '222', price: 1, category_id: parent.category.id, stock: 10 }, org));
    ok(await create({ name: 'Delivery 100%', type: 'service', price: 9 }, org));
    ok(await create({ name: 'Other org product' }, 4));

    const all = ok(await svc.call('catalog.product.list', {}, org));
    expect(all.products.map((p: { name: string }) => p.name)).toEqual(['Delivery 100%', 'Water', 'Apple juice']);
    expect(all.products[2]).toMatchObject({ category: 'Juice', category_id: child.category.id, stock: 7.25, price: 3 });
    expect(all.pagination).toEqual({ page_number: 1, page_size: 25, total_items: 3, total_pages: 1, has_next: false, has_previous: false });

    const names = async (payload: Record<string, unknown>) =>
      ok(await svc.call('catalog.product.list', payload, org)).products.map((p: { name: string }) => p.name);
    expect(await names({ search: 'aj-' })).toEqual(['Apple juice']);
    expect(await names({ search: '222' })).toEqual(['Water']);
    expect(await names({ search: '100%' })).toEqual(['Delivery 100%']);
    expect(await names({ search: '%' })).toEqual(['Delivery 100%']);
    expect(await names({ category_id: parent.category.id })).toEqual(['Water', 'Apple juice']);
    expect(await names({ category_id: child.category.id })).toEqual(['Apple juice']);
    expect(await names({ type: 'service' })).toEqual(['Delivery 100%']);
    expect(await names({ sort_by: 'price' })).toEqual(['Water', 'Apple juice', 'Delivery 100%']);
    expect(await names({ sort_by: 'stock', sort_order: 'desc' })).toEqual(['Water', 'Apple juice', 'Delivery 100%']);
    expect(await names({ sort_by: 'name', sort_order: 'asc' })).toEqual(['Apple juice', 'Delivery 100%', 'Water']);

    const page = ok(await svc.call('catalog.product.list', { page_size: 2, page_number: 2 }, org));
    expect(page.products.map((p: { name: string }) => p.name)).toEqual(['Apple juice']);
    expect(page.pagination).toEqual({ page_number: 2, page_size: 2, total_items: 3, total_pages: 2, has_next: false, has_previous: true });

    expect(refusal(await svc.call('catalog.product.list', { category_id: parent.category.id }, 4))).toMatchObject({ code: 'not_found' });
    expect(refusal(await svc.call('catalog.product.list', { sort_by: 'colour' }, org))).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'sort_by' }],
    });
  });

  it('writes only events that hold to their published contracts', async () => {
    // runs last, over every event the tests above made
    expect(await expectOutboxToMatchContracts(svc)).toBeGreaterThan(0);
  });
});

const waitFor = (check: () => boolean) => testing.waitUntil(check, { timeoutMs: 5000, intervalMs: 25 });
