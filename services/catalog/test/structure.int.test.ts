import * as testing from '@bo/testkit';
import { catalogService } from '../src';
import { checkingReplies, expectOutboxToMatchContracts, ok, refusal, snapshot } from './helpers';

describe('catalog categories, variants, warehouses and locations (integration)', () => {
  let svc: testing.TestService;
  beforeAll(async () => {
    svc = checkingReplies(await testing.startTestService(catalogService));
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const category = (payload: Record<string, unknown>, org = 1) => svc.call('catalog.category.create', { userid: 'u1', ...payload }, org);
  const editCategory = (payload: Record<string, unknown>, org = 1) => svc.call('catalog.category.edit', { userid: 'u1', ...payload }, org);

  it('creates and edits categories with string ids; the edit answer omits parent_id', async () => {
    const root = ok(await category({ name: 'Beverages', code: 'BEV', taxable: false, default_account: '4000' }));
    expect(root).toEqual({
      message: 'Category created successfully',
      category: {
        id: expect.stringMatching(/^\d+$/),
        name: 'Beverages',
        code: 'BEV',
        parent_id: null,
        taxable: false,
        default_account: '4000',
      },
    });
    const child = ok(await category({ name: 'Tea', parent_id: root.category.id }));
    expect(child.category).toMatchObject({ parent_id: root.category.id, taxable: true, code: null, default_account: null });

    const edited = ok(
      await editCategory({ category_id: child.category.id, name: 'Green tea', code: 'TEA', taxable: false, default_account: '4100' }),
    );
    expect(edited).toEqual({
      message: 'Category updated successfully',
      category: { id: child.category.id, name: 'Green tea', code: 'TEA', taxable: false, default_account: '4100' },
    });
    const row = await svc
      .db('categories')
      .where({ id: Number(child.category.id) })
      .first();
    expect(String(row.parent_id)).toBe(root.category.id);
  });

  it('clears a category code and account given as null on edit, freeing the code', async () => {
    const c = ok(await category({ name: 'Coded', code: 'FREE-CODE', default_account: '4200' }));
    const edited = ok(await editCategory({ category_id: c.category.id, code: null, default_account: null }));
    expect(edited.category).toEqual({ id: c.category.id, name: 'Coded', code: null, taxable: true, default_account: null });
    expect(ok(await category({ name: 'Recoded', code: 'free-code' })).category.code).toBe('free-code');
  });

  it('refuses missing parents, cycles and duplicate codes, changing nothing', async () => {
    const a = ok(await category({ name: 'A', code: 'CAT-A' }));
    const b = ok(await category({ name: 'B', parent_id: a.category.id }));
    const c = ok(await category({ name: 'C', parent_id: b.category.id }));
    const foreign = ok(await category({ name: 'Foreign' }, 2));
    const before = await snapshot(svc);
    expect(refusal(await category({ name: 'X', parent_id: '987654' }))).toMatchObject({
      code: 'not_found',
      message: 'Category 987654 not found',
    });
    expect(refusal(await category({ name: 'X', parent_id: foreign.category.id }))).toMatchObject({ code: 'not_found' });
    expect(refusal(await category({ name: 'X', code: 'cat-a' }))).toMatchObject({
      code: 'duplicate',
      message: 'Category code cat-a already exists',
    });
    expect(refusal(await editCategory({ category_id: c.category.id, code: 'CAT-A' }))).toMatchObject({ code: 'duplicate' });
    expect(refusal(await editCategory({ category_id: a.category.id, parent_id: c.category.id }))).toMatchObject({
      code: 'validation_failed',
      message: `parent_id ${c.category.id} would make category ${a.category.id} its own ancestor`,
      errors: [{ field: 'parent_id' }],
    });
    expect(refusal(await editCategory({ category_id: a.category.id, parent_id: a.category.id }))).toMatchObject({
      code: 'validation_failed',
    });
    expect(refusal(await editCategory({ category_id: foreign.category.id, name: 'Mine' }))).toMatchObject({ code: 'not_found' });
    expect(refusal(await editCategory({ category_id: a.category.id, name: '' }))).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'name' }],
    });
    expect(await snapshot(svc)).toEqual(before);
    // moving a leaf under another branch is fine, and the same code may live in another organization
    ok(await editCategory({ category_id: c.category.id, parent_id: a.category.id }));
    ok(await category({ name: 'A elsewhere', code: 'CAT-A' }, 2));
  });

  it('refuses two concurrent edits that together would close a loop', async () => {
    const x = ok(await category({ name: 'X' }));
    const y = ok(await category({ name: 'Y' }));
    const replies = await Promise.all([
      editCategory({ category_id: x.category.id, parent_id: y.category.id }),
      editCategory({ category_id: y.category.id, parent_id: x.category.id }),
    ]);
    expect(replies.filter((r) => r.ok)).toHaveLength(1);
    const rows = await svc.db('categories').whereIn('id', [Number(x.category.id), Number(y.category.id)]);
    expect(rows.filter((r) => r.parent_id !== null)).toHaveLength(1);
  });

  it('creates variants with their own sku, barcode, price and cost', async () => {
    const parent = ok(await svc.call('catalog.product.create', { name: 'T-shirt', price: 20, cost: 8, sku: 'TS' })).product;
    const v = ok(
      await svc.call('catalog.variant.create', {
        action: 'create_variant',
        parent_product_id: parent.id,
        variant_name: 'T-shirt red M',
        options: { color: 'red', size: 'M' },
        price: '22.50',
        cost: 9,
        sku: 'TS-RED-M',
        barcode: '999',
      }),
    );
    expect(v).toEqual({
      message: 'Variant created successfully',
      variant: {
        id: expect.any(Number),
        parent_product_id: parent.id,
        variant_name: 'T-shirt red M',
        options: { color: 'red', size: 'M' },
        price: 22.5,
        cost: 9,
        sku: 'TS-RED-M',
        barcode: '999',
        // No tax defaults of its own: it takes its product's.
        tax_rate: null,
        tax_category: null,
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
      },
    });
    const inherits = ok(
      await svc.call('catalog.variant.create', {
        action: 'create_variant',
        parent_product_id: parent.id,
        variant_name: 'T-shirt blue M',
        options: { color: 'blue', size: 'M' },
      }),
    );
    expect(inherits.variant).toMatchObject({ price: 20, cost: 8, sku: null, barcode: null });

    const before = await snapshot(svc);
    expect(
      refusal(
        await svc.call('catalog.variant.create', {
          action: 'create_variant',
          parent_product_id: parent.id,
          variant_name: 'Again',
          options: { Size: 'm', color: 'RED' },
        }),
      ),
    ).toMatchObject({ code: 'duplicate', errors: [{ field: 'options' }] });
    expect(
      refusal(
        await svc.call('catalog.variant.create', {
          action: 'create_variant',
          parent_product_id: parent.id,
          variant_name: 'Clash',
          options: { size: 'L' },
          sku: 'ts',
        }),
      ),
    ).toMatchObject({ code: 'duplicate', message: 'SKU ts already exists' });
    expect(
      refusal(await svc.call('catalog.variant.create', { action: 'create_variant', parent_product_id: 999999, variant_name: 'Orphan' })),
    ).toMatchObject({ code: 'not_found', message: 'Product 999999 not found' });
    expect(
      refusal(
        await svc.call('catalog.variant.create', { action: 'create_variant', parent_product_id: parent.id, variant_name: 'Foreign' }, 2),
      ),
    ).toMatchObject({ code: 'not_found' });
    expect(
      refusal(
        await svc.call('catalog.variant.create', {
          action: 'create_variant',
          parent_product_id: parent.id,
          variant_name: 'Twice',
          options: { Size: 'M', 'size ': 'L' },
        }),
      ),
    ).toMatchObject({ code: 'validation_failed', errors: [{ field: 'options' }] });
    expect(refusal(await svc.call('catalog.variant.create', { action: 'create_variant', parent_product_id: parent.id }))).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'variant_name' }],
    });
    expect(await snapshot(svc)).toEqual(before);
  });

  it('gives each organization one default warehouse and location, even when first calls race', async () => {
    const org = 7;
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => svc.call('catalog.location.list', { action: 'list_locations' }, org)),
    );
    for (const r of replies) expect(ok(r).locations).toHaveLength(1);
    expect(await svc.db('warehouses').where({ org_id: org })).toHaveLength(1);
    expect(ok(replies[0]!).locations).toEqual([
      {
        warehouse_id: expect.any(String),
        warehouse_name: 'Main Warehouse',
        location_id: expect.any(String),
        location_name: 'Stock',
        is_default: true,
      },
    ]);
  });

  it('creates warehouses and locations and lists them, default first', async () => {
    const org = 8;
    const wh = ok(await svc.call('catalog.warehouse.create', { action: 'create_warehouse', name: 'Harbour', address: 'Pier 4' }, org));
    expect(wh).toMatchObject({
      message: 'Warehouse created successfully',
      warehouse: { id: expect.stringMatching(/^\d+$/), name: 'Harbour', address: 'Pier 4', is_default: false },
      location: { warehouse_name: 'Harbour', location_name: 'Stock', is_default: false },
    });
    const loc = ok(
      await svc.call('catalog.location.create', { action: 'create_location', warehouse_id: wh.warehouse.id, name: 'Bay 2' }, org),
    );
    expect(loc).toEqual({
      message: 'Location created successfully',
      location: {
        warehouse_id: wh.warehouse.id,
        warehouse_name: 'Harbour',
        location_id: expect.stringMatching(/^\d+$/),
        location_name: 'Bay 2',
        is_default: false,
      },
    });
    const listed = ok(await svc.call('catalog.location.list', { action: 'list_locations' }, org));
    expect(
      listed.locations.map((l: { warehouse_name: string; location_name: string; is_default: boolean }) => [
        l.warehouse_name,
        l.location_name,
        l.is_default,
      ]),
    ).toEqual([
      ['Main Warehouse', 'Stock', true],
      ['Harbour', 'Stock', false],
      ['Harbour', 'Bay 2', false],
    ]);

    const before = await snapshot(svc);
    expect(refusal(await svc.call('catalog.warehouse.create', { action: 'create_warehouse', name: 'harbour' }, org))).toMatchObject({
      code: 'duplicate',
      message: 'Warehouse harbour already exists',
    });
    expect(
      refusal(await svc.call('catalog.location.create', { action: 'create_location', warehouse_id: wh.warehouse.id, name: 'BAY 2' }, org)),
    ).toMatchObject({ code: 'duplicate' });
    expect(
      refusal(await svc.call('catalog.location.create', { action: 'create_location', warehouse_id: wh.warehouse.id, name: 'Intruder' }, 9)),
    ).toMatchObject({ code: 'not_found', message: `Warehouse ${wh.warehouse.id} not found` });
    expect(
      refusal(await svc.call('catalog.location.create', { action: 'create_location', warehouse_id: 'zzz', name: 'X' }, org)),
    ).toMatchObject({ code: 'not_found' });
    expect(refusal(await svc.call('catalog.warehouse.create', { action: 'create_warehouse', name: '' }, org))).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'name' }],
    });
    // org 9's defaults were made by its first call above; nothing of org 8 changed
    const after = await snapshot(svc);
    const ofOrg8 = (s: Record<string, unknown[]>) =>
      Object.fromEntries(Object.entries(s).map(([t, rows]) => [t, rows.filter((r) => (r as { org_id?: number }).org_id !== 9)]));
    expect(ofOrg8(after)).toEqual(ofOrg8(before));
  });

  it('writes only events that hold to their published contracts', async () => {
    // runs last, over every event the tests above made
    expect(await expectOutboxToMatchContracts(svc)).toBeGreaterThan(0);
  });
});
