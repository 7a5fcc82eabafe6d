import type { Client, OperationNamed, RequestBody } from '@bo/client';
import { catalog } from '@bo/contracts';
import { createDb } from '@bo/runtime';
import { startTestSystem, eventually, refusal, type TestSystem } from '../support/system';

type ProductQuery = Omit<RequestBody<OperationNamed<'catalog.product.list'>>, 'org_id'>;

/** The catalog through the gateway with the typed client; raw HTTP where a request the types forbid is the point. */
describe('catalog through the gateway', () => {
  let sys: TestSystem;
  let org1: Client;
  let org2: Client;
  let defaultLoc: string;
  beforeAll(async () => {
    sys = await startTestSystem({ services: ['catalog'] });
    org1 = sys.client;
    org2 = sys.clientOf(2);
    const listed = await org1.catalog.location.list({ org_id: '1', userid: 'u1' });
    defaultLoc = listed.locations[0]!.location_id;
  });
  afterAll(async () => {
    await sys?.stop();
  });

  const clientOf = (org: 1 | 2) => (org === 1 ? org1 : org2);
  const products = (query: ProductQuery = {}, org: 1 | 2 = 1) => clientOf(org).catalog.product.list({ org_id: String(org), ...query });
  const details = (productId: number, org: 1 | 2 = 1) =>
    clientOf(org).catalog.stock.details({ org_id: String(org), userid: 'u1', product_id: productId });
  const moves = (productId: number) => org1.catalog.stock.moves({ org_id: '1', product_id: productId });
  const createProduct = async (body: RequestBody<OperationNamed<'catalog.product.create'>>, org: 1 | 2 = 1) =>
    (await clientOf(org).catalog.product.create(body)).product;

  it('lists the default warehouse and location of a new organization', async () => {
    const res = await org2.catalog.location.list({ org_id: '2' });
    expect(res).toEqual({
      message: 'Locations retrieved successfully',
      locations: [
        {
          warehouse_id: expect.stringMatching(/^\d+$/),
          warehouse_name: 'Main Warehouse',
          location_id: expect.stringMatching(/^\d+$/),
          location_name: 'Stock',
          is_default: true,
        },
      ],
    });
  });

  it('creates a category and a product with stock, then lists it with the category name and summed stock', async () => {
    const cat = await org1.catalog.category.create({
      org_id: '1',
      userid: 'u1',
      name: 'Hardware',
      code: 'HW',
      parent_id: null,
      taxable: true,
      default_account: '4000',
    });
    expect(cat.category).toEqual({
      id: expect.stringMatching(/^\d+$/),
      name: 'Hardware',
      code: 'HW',
      parent_id: null,
      taxable: true,
      default_account: '4000',
    });

    const created = await org1.catalog.product.create({
      org_id: '1',
      userid: 'u1',
      name: 'Drill',
      description: '18V',
      price: 89.9,
      cost: '41.25',
      category_id: cat.category.id,
      sku: 'DR-18',
      barcode: '5901234123457',
      taxable: true,
      tax_rate: 16,
      type: 'inventory',
      uom: 'pcs',
      stock: 12,
    });
    expect(created.message).toBe('Product created successfully');
    expect(created.product).toMatchObject({
      id: expect.any(Number),
      name: 'Drill',
      description: '18V',
      price: 89.9,
      cost: 41.25,
      category_id: cat.category.id,
      sku: 'DR-18',
      barcode: '5901234123457',
      taxable: true,
      tax_rate: 16,
      type: 'inventory',
      uom: 'pcs',
      stock: 12,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
    });
    const id = created.product.id;

    const wh = await org1.catalog.warehouse.create({ org_id: '1', name: 'Depot' });
    expect(wh.location.location_name).toBe('Stock');
    // adjust stock is accepted on every /inventory path (a path quirk of the spec, so sent raw)
    const adj = await sys.post('/inventory/getproducts', {
      org_id: '1',
      userid: 'u1',
      action: 'stock_adjustment',
      product_id: id,
      qty_locations: { [wh.location.location_id]: 3 },
      adjustment_type: 'increase',
      reference: 'PO-7',
      notes: 'delivery',
    });
    expect(adj.statusCode).toBe(200);
    expect(adj.body).toEqual({
      message: 'Stock adjusted successfully',
      stock_move_id: expect.stringMatching(/^\d+$/),
      details: [{ location_id: wh.location.location_id, previous_stock: 0, new_stock: 3, change: 3 }],
    });

    const listed = await products({ search: 'dr-18' });
    expect(listed.products).toHaveLength(1);
    expect(listed.products[0]).toMatchObject({ id, name: 'Drill', category: 'Hardware', stock: 15, price: 89.9, image: null });
    expect(listed.pagination).toEqual({
      page_number: 1,
      page_size: 25,
      total_items: 1,
      total_pages: 1,
      has_next: false,
      has_previous: false,
    });

    const d = await details(id);
    expect(d).toMatchObject({
      product_id: id,
      product_name: 'Drill',
      current_stock: 15,
      stock_details: [
        { location_id: defaultLoc, warehouse_name: 'Main Warehouse', location_name: 'Stock', stock_quantity: 12 },
        { location_id: wh.location.location_id, warehouse_name: 'Depot', location_name: 'Stock', stock_quantity: 3 },
      ],
    });
    const history = await moves(id);
    expect(history.stock_moves.map((m) => [m.source, m.adjustment_type, m.created_by, m.total_change])).toEqual([
      ['adjustment', 'increase', 'u1', 3],
      ['initial', 'initial', 'u1', 12],
    ]);
  });

  it('edits a product (stock moves the default location), creates a variant and soft-deletes', async () => {
    const p = await createProduct({ org_id: '1', userid: 'u1', name: 'Nail', sku: 'NAIL', stock: 100, price: 0.05 });
    const edit = await org1.catalog.product.edit({
      org_id: '1',
      userid: 'u1',
      product_id: p.id,
      name: 'Steel nail',
      stock: 80,
      min_stock_level: 20,
      max_stock_level: 500,
    });
    expect(edit).toEqual({
      message: 'Product updated successfully',
      product: expect.objectContaining({
        id: p.id,
        name: 'Steel nail',
        stock: 80,
        min_stock_level: 20,
        max_stock_level: 500,
        updated_at: expect.any(String),
      }),
    });
    expect((await details(p.id)).stock_details).toEqual([expect.objectContaining({ location_id: defaultLoc, stock_quantity: 80 })]);
    expect((await details(p.id)).min_stock_level).toBe(20);

    const variant = await org1.catalog.variant.create({
      org_id: '1',
      userid: 'u1',
      parent_product_id: p.id,
      variant_name: 'Steel nail 50mm',
      options: { length: '50mm' },
      price: 0.07,
      cost: 0.02,
      sku: 'NAIL-50',
      barcode: '123',
    });
    expect(variant.variant).toEqual(
      expect.objectContaining({
        id: expect.any(Number),
        parent_product_id: p.id,
        variant_name: 'Steel nail 50mm',
        options: { length: '50mm' },
        price: 0.07,
        cost: 0.02,
        sku: 'NAIL-50',
        barcode: '123',
      }),
    );

    const del = await org1.catalog.product.delete({ org_id: '1', userid: 'u1', product_id: p.id });
    expect(del).toEqual({ message: 'Product deleted successfully' });
    expect((await products({ search: 'nail' })).products).toEqual([]);
    // its SKUs are free again
    expect((await createProduct({ org_id: '1', name: 'Nail v2', sku: 'NAIL' })).sku).toBe('NAIL');
    expect((await createProduct({ org_id: '1', name: 'Nail v2 50', sku: 'NAIL-50' })).sku).toBe('NAIL-50');
    expect(await refusal(details(p.id))).toMatchObject({ status: 400, code: 'not_found', message: `Product ${p.id} not found` });
  });

  it('edits a category; the answer omits parent_id', async () => {
    const parent = (await org1.catalog.category.create({ org_id: '1', name: 'Garden' })).category;
    const child = (await org1.catalog.category.create({ org_id: '1', name: 'Hoses', parent_id: parent.id })).category;
    const edit = await org1.catalog.category.edit({
      org_id: '1',
      userid: 'u1',
      category_id: child.id,
      name: 'Garden hoses',
      code: 'HOSE',
      taxable: false,
      default_account: '4010',
    });
    expect(edit).toEqual({
      message: 'Category updated successfully',
      category: { id: child.id, name: 'Garden hoses', code: 'HOSE', taxable: false, default_account: '4010' },
    });
    const cycle = await refusal(org1.catalog.category.edit({ org_id: '1', category_id: parent.id, parent_id: child.id }));
    expect(cycle).toMatchObject({ status: 400, code: 'validation_failed', errors: [{ field: 'parent_id' }] });
  });

  it('refuses bad input with 400 naming the cause, and changes nothing', async () => {
    const p = await createProduct({ org_id: '1', name: 'Glue', sku: 'GLUE', stock: 5 });
    const service = await createProduct({ org_id: '1', name: 'Assembly', type: 'service', price: 50 });
    const listBefore = await products();
    const detailsBefore = await details(p.id);
    const movesBefore = await moves(p.id);
    const adjust = (productId: number, qty: Record<string, number>) =>
      refusal(org1.catalog.stock.adjust({ org_id: '1', product_id: productId, qty_locations: qty }));

    const dupe = await refusal(org1.catalog.product.create({ org_id: '1', name: 'Glue 2', sku: 'GLUE', stock: 3 }));
    expect(dupe).toMatchObject({ status: 400, code: 'duplicate', message: 'SKU GLUE already exists' });
    const dupeEdit = await refusal(org1.catalog.product.edit({ org_id: '1', product_id: service.id, sku: 'glue' }));
    expect(dupeEdit).toMatchObject({ code: 'duplicate', message: 'SKU glue already exists' });
    const badCategory = await refusal(org1.catalog.product.create({ org_id: '1', name: 'X', category_id: '424242' }));
    expect(badCategory).toMatchObject({ code: 'not_found', message: 'Category 424242 not found' });
    // Bodies the client's types refuse to build go raw: the gateway must refuse them too.
    const badType = await sys.post('/inventory/editproduct/', { org_id: '1', name: 'X', type: 'digital' });
    expect(badType.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'type', message: 'type must be one of "inventory", "service", "consumable"' }],
    });
    const missingName = await sys.post('/inventory/editproduct/', { org_id: '1', price: 3 });
    expect(missingName.body).toMatchObject({ code: 'validation_failed', errors: [{ field: 'name', message: 'name is required' }] });
    expect(await adjust(p.id, { [defaultLoc]: 50, '777777': 1 })).toMatchObject({
      code: 'not_found',
      message: 'Location 777777 not found',
    });
    expect(await adjust(p.id, { [defaultLoc]: -2 })).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: `qty_locations.${defaultLoc}` }],
    });
    expect(await adjust(service.id, { [defaultLoc]: 1 })).toMatchObject({ code: 'invalid_state' });
    const unknownAction = await sys.post('/inventory/ops/getdata', { org_id: '1', action: 'explode' });
    expect(unknownAction.body.code).toBe('unknown_action');

    expect(await products()).toEqual(listBefore);
    expect(await details(p.id)).toEqual(detailsBefore);
    expect(await moves(p.id)).toEqual(movesBefore);
  });

  it("creates a location in a warehouse and places a new product's stock there", async () => {
    const wh = await org1.catalog.warehouse.create({ org_id: '1', userid: 'u1', name: 'Yard', address: 'Dock road 1' });
    expect(wh.warehouse).toEqual({
      id: wh.location.warehouse_id,
      name: 'Yard',
      address: 'Dock road 1',
      is_default: false,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
    });
    const res = await org1.catalog.location.create({ org_id: '1', userid: 'u1', warehouse_id: wh.warehouse.id, name: 'Rack 1' });
    expect(res).toEqual({
      message: 'Location created successfully',
      location: {
        warehouse_id: wh.warehouse.id,
        warehouse_name: 'Yard',
        location_id: expect.stringMatching(/^\d+$/),
        location_name: 'Rack 1',
        is_default: false,
      },
    });
    const rack = res.location.location_id;
    const listed = (await org1.catalog.location.list({ org_id: '1' })).locations;
    expect(listed).toContainEqual(res.location);

    const p = await createProduct({
      org_id: '1',
      userid: 'u1',
      name: 'Sandbag',
      stock: '7.5',
      warehouse_id: wh.warehouse.id,
      location_id: rack,
    });
    expect(p.stock).toBe(7.5);
    expect((await details(p.id)).stock_details).toEqual([
      {
        warehouse_id: wh.warehouse.id,
        warehouse_name: 'Yard',
        location_id: rack,
        location_name: 'Rack 1',
        stock_quantity: 7.5,
        negative: false,
      },
    ]);
    // a location outside the warehouse named is refused, as is the default location under Yard
    const mismatch = await refusal(
      org1.catalog.product.create({ org_id: '1', name: 'Misplaced', stock: 1, warehouse_id: wh.warehouse.id, location_id: defaultLoc }),
    );
    expect(mismatch).toMatchObject({
      code: 'validation_failed',
      message: `location_id ${defaultLoc} is not in warehouse ${wh.warehouse.id}`,
      errors: [{ field: 'location_id' }],
    });
    expect((await products({ search: 'Misplaced' })).products).toEqual([]);
  });

  it('filters, sorts and pages the product list through the gateway', async () => {
    const tools = (await org2.catalog.category.create({ org_id: '2', name: 'Tools e2e' })).category;
    const saws = (await org2.catalog.category.create({ org_id: '2', name: 'Saws e2e', parent_id: tools.id })).category;
    await createProduct({ org_id: '2', name: 'Zeta saw', category_id: saws.id, price: 30, stock: 2 }, 2);
    await createProduct({ org_id: '2', name: 'Alpha hammer', category_id: tools.id, price: 12, stock: 9 }, 2);
    await createProduct({ org_id: '2', name: 'Sharpening', category_id: tools.id, price: 20, type: 'service' }, 2);
    const names = async (query: ProductQuery) => (await products(query, 2)).products.map((p) => p.name);

    expect(await names({ category_id: tools.id })).toEqual(['Sharpening', 'Alpha hammer', 'Zeta saw']);
    expect(await names({ category_id: saws.id })).toEqual(['Zeta saw']);
    expect(await names({ category_id: tools.id, type: 'service' })).toEqual(['Sharpening']);
    expect(await names({ category_id: tools.id, sort_by: 'price' })).toEqual(['Alpha hammer', 'Sharpening', 'Zeta saw']);
    expect(await names({ category_id: tools.id, sort_by: 'stock', sort_order: 'desc' })).toEqual([
      'Alpha hammer',
      'Zeta saw',
      'Sharpening',
    ]);
    const page = await products({ category_id: tools.id, sort_by: 'name', page_size: '2', page_number: '2' }, 2);
    expect(page.products.map((p) => [p.name, p.category, p.stock])).toEqual([['Zeta saw', 'Saws e2e', 2]]);
    expect(page.pagination).toEqual({ page_number: 2, page_size: 2, total_items: 3, total_pages: 2, has_next: false, has_previous: true });
    // organization 1 cannot filter by organization 2's category
    expect(await refusal(products({ category_id: tools.id }, 1))).toMatchObject({
      code: 'not_found',
      message: `Category ${tools.id} not found`,
    });
  });

  it('refuses unknown or foreign parents, duplicate codes, bad stock levels and stock on a service, changing nothing', async () => {
    const p = await createProduct({ org_id: '1', name: 'Anchor', sku: 'ANCHOR', stock: 4 });
    const cat = (await org1.catalog.category.create({ org_id: '1', name: 'Marine', code: 'MAR' })).category;
    const theirs = await createProduct({ org_id: '2', name: 'Buoy' }, 2);
    const theirCat = (await org2.catalog.category.create({ org_id: '2', name: 'Theirs' })).category;
    const theirLoc = (await org2.catalog.location.list({ org_id: '2' })).locations[0]!.location_id;
    const side = (await org1.catalog.warehouse.create({ org_id: '1', name: 'Pier' })).location.location_id;
    await org1.catalog.stock.adjust({ org_id: '1', product_id: p.id, qty_locations: { [side]: 6 } });
    const db = createDb(sys.databaseUrl, 'catalog', 1);
    try {
      const before = await catalogRows(db);
      const variant = { org_id: '1', variant_name: 'V', options: { size: 'S' } };
      const { category, product } = org1.catalog;
      // One after another, as a client would send them; each must be refused.
      const calls = [
        () => org1.catalog.variant.create({ ...variant, parent_product_id: 999999 }),
        () => org1.catalog.variant.create({ ...variant, parent_product_id: theirs.id }),
        () => category.create({ org_id: '1', name: 'Orphan', parent_id: '999999' }),
        () => category.create({ org_id: '1', name: 'Adopted', parent_id: theirCat.id }),
        () => category.create({ org_id: '1', name: 'Copy', code: 'mar' }),
        () => category.edit({ org_id: '1', category_id: cat.id, parent_id: cat.id }),
        () => product.create({ org_id: '1', name: 'Chain', min_stock_level: 10, max_stock_level: 5 }),
        () => product.edit({ org_id: '1', product_id: p.id, min_stock_level: 10, max_stock_level: 5 }),
        () => product.create({ org_id: '1', name: 'Towing', type: 'service', stock: 3 }),
        () => product.create({ org_id: '1', name: 'Rope', stock: 3, location_id: theirLoc }),
        () => product.edit({ org_id: '1', product_id: p.id, stock: 5 }),
        () => product.edit({ org_id: '1', product_id: p.id, type: 'consumable' }),
      ];
      const answers = [];
      for (const call of calls) answers.push(await refusal(call()));
      expect(answers.map((a) => [a.status, a.code, a.message])).toEqual([
        [400, 'not_found', 'Product 999999 not found'],
        [400, 'not_found', `Product ${theirs.id} not found`],
        [400, 'not_found', 'Category 999999 not found'],
        [400, 'not_found', `Category ${theirCat.id} not found`],
        [400, 'duplicate', 'Category code mar already exists'],
        [400, 'validation_failed', `parent_id ${cat.id} would make category ${cat.id} its own ancestor`],
        [400, 'validation_failed', 'min_stock_level 10 must not exceed max_stock_level 5'],
        [400, 'validation_failed', 'min_stock_level 10 must not exceed max_stock_level 5'],
        [400, 'validation_failed', 'stock can only be given to inventory products, not to a service product'],
        [400, 'not_found', `Location ${theirLoc} not found`],
        [400, 'validation_failed', 'stock 5 is below the 6 held outside the default location; use stock_adjustment for those locations'],
        [400, 'invalid_state', `Product ${p.id} still holds stock; adjust it to 0 before making it a consumable product`],
      ]);
      expect(await catalogRows(db)).toEqual(before);
    } finally {
      await db.destroy();
    }
    expect((await details(p.id)).current_stock).toBe(10);
  });

  it("keeps organizations apart: another org's product, category and location are not found", async () => {
    const p = await createProduct({ org_id: '1', name: 'Secret', sku: 'SECRET', stock: 2 });
    const cat = (await org1.catalog.category.create({ org_id: '1', name: 'Private' })).category;
    const org2Loc = (await org2.catalog.location.list({ org_id: '2' })).locations[0]!.location_id;

    expect(await refusal(details(p.id, 2))).toMatchObject({ code: 'not_found' });
    expect(await refusal(org2.catalog.product.edit({ org_id: '2', product_id: p.id, name: 'Mine' }))).toMatchObject({ code: 'not_found' });
    expect(await refusal(org2.catalog.product.delete({ org_id: '2', product_id: p.id }))).toMatchObject({ code: 'not_found' });
    expect(await refusal(org2.catalog.product.create({ org_id: '2', name: 'X', category_id: cat.id }))).toMatchObject({
      code: 'not_found',
    });
    expect(await refusal(org2.catalog.category.edit({ org_id: '2', category_id: cat.id, name: 'Mine' }))).toMatchObject({
      code: 'not_found',
    });
    const foreignLocation = refusal(org1.catalog.stock.adjust({ org_id: '1', product_id: p.id, qty_locations: { [org2Loc]: 9 } }));
    expect(await foreignLocation).toMatchObject({ code: 'not_found', message: `Location ${org2Loc} not found` });
    expect((await products({}, 2)).products.map((x) => x.name)).not.toContain('Secret');
    // the same SKU is free in another organization
    expect((await createProduct({ org_id: '2', name: 'Their secret', sku: 'SECRET' }, 2)).sku).toBe('SECRET');
    // and a key cannot speak for another organization
    expect(await refusal(org1.catalog.product.list({ org_id: '2' }))).toMatchObject({ status: 403, code: 'forbidden' });
    expect((await details(p.id)).current_stock).toBe(2);
  });

  it('30 concurrent adjustments through the gateway: the final quantity equals the sum of the moves', async () => {
    const p = await createProduct({ org_id: '1', name: 'Busy', sku: 'BUSY' });
    // Each call succeeds or the test fails with its refusal.
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        org1.catalog.stock.adjust({ org_id: '1', product_id: p.id, qty_locations: { [defaultLoc]: (i + 1) * 2 } }),
      ),
    );
    const all = await org1.catalog.stock.moves({ org_id: '1', product_id: p.id, page_size: 100 });
    expect(all.stock_moves).toHaveLength(30);
    const ledger = all.stock_moves.reduce((acc, m) => acc + m.total_change, 0);
    const d = await details(p.id);
    expect(d.current_stock).toBe(ledger);
    const chain = [...all.stock_moves].reverse().map((m) => m.lines[0]!);
    for (let i = 1; i < chain.length; i++) expect(chain[i]!.previous_stock).toBe(chain[i - 1]!.new_stock);
    expect(d.current_stock).toBe(chain[chain.length - 1]!.new_stock);
  });

  it('applies a retried adjustment with the same Idempotency-Key once', async () => {
    const p = await createProduct({ org_id: '1', name: 'Retried', sku: 'RETRY', stock: 1 });
    const body = { org_id: '1', product_id: p.id, qty_locations: { [defaultLoc]: 9 } };
    const first = await org1.catalog.stock.adjust(body, { idempotencyKey: 'adj-retry-1' });
    const again = await org1.catalog.stock.adjust(body, { idempotencyKey: 'adj-retry-1' });
    expect(again).toEqual(first);
    expect((await moves(p.id)).stock_moves).toHaveLength(2);
    expect((await details(p.id)).current_stock).toBe(9);
  });

  it('publishes catalog events through the outbox', async () => {
    const p = await createProduct({ org_id: '1', name: 'Evented', sku: 'EVT', stock: 1 });
    // the outbox rows are marked published by the relay
    const db = createDb(sys.databaseUrl, 'catalog', 1);
    try {
      await eventually(async () => {
        const rows = await db('outbox')
          .whereRaw("envelope->'data'->>'id' = ? or envelope->'data'->>'product_id' = ?", [String(p.id), String(p.id)])
          .select('type', 'published_at', 'envelope');
        expect(rows.map((r: { type: string }) => r.type).sort()).toEqual(['catalog.product.created', 'catalog.stock.adjusted']);
        expect(rows.every((r: { published_at: Date | null }) => r.published_at !== null)).toBe(true);
        // each event's data holds to its published contract
        for (const r of rows as Array<{ type: string; envelope: { data: unknown } }>) {
          const def = catalog.catalogEvents.find((e) => e.type === r.type);
          expect(def?.data.safeParse(r.envelope.data).success).toBe(true);
        }
        const adjusted = rows.find((r: { type: string }) => r.type === 'catalog.stock.adjusted');
        expect(adjusted.envelope.data).toMatchObject({
          product_id: p.id,
          source: 'initial',
          stock: 1,
          lines: [{ location_id: defaultLoc, previous_stock: 0, new_stock: 1, change: 1 }],
        });
      });
    } finally {
      await db.destroy();
    }
  });
});

/** Every catalog row a request could touch, and which events exist (the relay stamps publish times). */
async function catalogRows(db: ReturnType<typeof createDb>): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of [
    'products',
    'variants',
    'categories',
    'warehouses',
    'locations',
    'skus',
    'stock_quantities',
    'stock_moves',
    'stock_move_lines',
  ]) {
    out[t] = await db(t).select('*').orderByRaw('1, 2');
  }
  out.outbox = await db('outbox').select('event_id', 'type').orderBy('id');
  return out;
}
