import * as testing from '@bo/testkit';
import { catalogService } from '../src';
import { checkingReplies, defaultLocationId, ok, refusal, snapshot } from './helpers';

/**
 * Malformed requests of every catalog operation: each is a 400 `validation_failed` whose `errors[]`
 * names the offending field, and none of them changes a row or writes an event.
 */
describe('catalog bad input (integration)', () => {
  let svc: testing.TestService;
  beforeAll(async () => {
    svc = checkingReplies(await testing.startTestService(catalogService));
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const long = (n: number) => 'x'.repeat(n);

  it('refuses each malformed field with a 400 naming it, changing nothing', async () => {
    const loc = await defaultLocationId(svc);
    const wh = ok(await svc.call('catalog.warehouse.create', { action: 'create_warehouse', name: 'Side' }));
    const cat = ok(await svc.call('catalog.category.create', { name: 'Parts' }));
    const p = ok(await svc.call('catalog.product.create', { name: 'Gear', sku: 'G-1', stock: 3 })).product;
    ok(
      await svc.call('catalog.variant.create', {
        action: 'create_variant',
        parent_product_id: p.id,
        variant_name: 'Gear L',
        options: { size: 'L' },
      }),
    );
    const before = await snapshot(svc);

    const product = { name: 'Valid' };
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['catalog.product.create', {}, 'name'],
      ['catalog.product.create', { name: 42 }, 'name'],
      ['catalog.product.create', { name: long(201) }, 'name'],
      ['catalog.product.create', { ...product, description: long(5001) }, 'description'],
      ['catalog.product.create', { ...product, price: 'abc' }, 'price'],
      ['catalog.product.create', { ...product, price: -1 }, 'price'],
      ['catalog.product.create', { ...product, price: null }, 'price'],
      ['catalog.product.create', { ...product, cost: '1.234' }, 'cost'],
      ['catalog.product.create', { ...product, cost: 1e12 }, 'cost'],
      ['catalog.product.create', { ...product, taxable: 'yes' }, 'taxable'],
      ['catalog.product.create', { ...product, tax_rate: 100.5 }, 'tax_rate'],
      ['catalog.product.create', { ...product, tax_rate: -1 }, 'tax_rate'],
      ['catalog.product.create', { ...product, type: 'gadget' }, 'type'],
      ['catalog.product.create', { ...product, sku: long(101) }, 'sku'],
      ['catalog.product.create', { ...product, barcode: 5 }, 'barcode'],
      ['catalog.product.create', { ...product, image: long(2001) }, 'image'],
      ['catalog.product.create', { ...product, uom: long(51) }, 'uom'],
      ['catalog.product.create', { ...product, stock: 'many' }, 'stock'],
      ['catalog.product.create', { ...product, stock: '1.23456' }, 'stock'],
      ['catalog.product.create', { ...product, min_stock_level: -1 }, 'min_stock_level'],
      ['catalog.product.create', { ...product, max_stock_level: 'high' }, 'max_stock_level'],
      ['catalog.product.create', { ...product, category_id: '' }, 'category_id'],
      ['catalog.product.create', { ...product, warehouse_id: { id: 1 } }, 'warehouse_id'],
      ['catalog.product.create', { ...product, location_id: true, stock: 1 }, 'location_id'],
      ['catalog.product.edit', { product_id: 'abc', name: 'X' }, 'product_id'],
      ['catalog.product.edit', { product_id: 0, name: 'X' }, 'product_id'],
      ['catalog.product.edit', { product_id: 1.5, name: 'X' }, 'product_id'],
      ['catalog.product.edit', { product_id: p.id, name: '' }, 'name'],
      ['catalog.product.edit', { product_id: p.id, price: '-0.01' }, 'price'],
      ['catalog.product.edit', { product_id: p.id, stock: -1 }, 'stock'],
      ['catalog.product.edit', { product_id: p.id, type: 'digital' }, 'type'],
      ['catalog.product.delete', { product_id: 'x', delete: true }, 'product_id'],
      ['catalog.product.delete', { delete: true }, 'product_id'],
      ['catalog.variant.create', { action: 'create_variant', variant_name: 'V' }, 'parent_product_id'],
      [
        'catalog.variant.create',
        { action: 'create_variant', parent_product_id: p.id, variant_name: 'V', options: { size: 5 } },
        'options.size',
      ],
      ['catalog.variant.create', { action: 'create_variant', parent_product_id: p.id, variant_name: 'V', options: 'red' }, 'options'],
      ['catalog.variant.create', { action: 'create_variant', parent_product_id: p.id, variant_name: 'V', price: -1 }, 'price'],
      ['catalog.variant.create', { action: 'create_variant', parent_product_id: p.id, variant_name: 'V', cost: '0.001' }, 'cost'],
      ['catalog.variant.create', { action: 'create_variant', parent_product_id: p.id, variant_name: 'V', sku: long(101) }, 'sku'],
      ['catalog.category.create', {}, 'name'],
      ['catalog.category.create', { name: 'C', taxable: 'no' }, 'taxable'],
      ['catalog.category.create', { name: 'C', parent_id: '' }, 'parent_id'],
      ['catalog.category.create', { name: 'C', code: long(51) }, 'code'],
      ['catalog.category.create', { name: 'C', default_account: long(101) }, 'default_account'],
      ['catalog.category.edit', { category_id: '', name: 'C' }, 'category_id'],
      ['catalog.category.edit', { category_id: cat.category.id, taxable: 1 }, 'taxable'],
      ['catalog.stock.adjust', { action: 'stock_adjustment', qty_locations: { [loc]: 1 } }, 'product_id'],
      ['catalog.stock.adjust', { action: 'stock_adjustment', product_id: p.id }, 'qty_locations'],
      ['catalog.stock.adjust', { action: 'stock_adjustment', product_id: p.id, qty_locations: [5] }, 'qty_locations'],
      [
        'catalog.stock.adjust',
        { action: 'stock_adjustment', product_id: p.id, qty_locations: { [loc]: '0.00001' } },
        `qty_locations.${loc}`,
      ],
      [
        'catalog.stock.adjust',
        { action: 'stock_adjustment', product_id: p.id, qty_locations: { [loc]: 1 }, adjustment_type: long(51) },
        'adjustment_type',
      ],
      ['catalog.stock.adjust', { action: 'stock_adjustment', product_id: p.id, qty_locations: { [loc]: 1 }, reference: 7 }, 'reference'],
      ['catalog.stock.adjust', { action: 'stock_adjustment', product_id: p.id, qty_locations: { [loc]: 1 }, notes: long(2001) }, 'notes'],
      ['catalog.stock.details', { action: 'stock_details', product_id: 'x' }, 'product_id'],
      ['catalog.stock.moves', { action: 'stock_moves', product_id: p.id, page_size: 101 }, 'page_size'],
      ['catalog.stock.moves', { action: 'stock_moves', product_id: p.id, page_number: 0 }, 'page_number'],
      ['catalog.product.list', { page_size: 0 }, 'page_size'],
      ['catalog.product.list', { sort_order: 'up' }, 'sort_order'],
      ['catalog.product.list', { type: 'gadget' }, 'type'],
      ['catalog.product.list', { search: long(201) }, 'search'],
      ['catalog.warehouse.create', { action: 'create_warehouse' }, 'name'],
      ['catalog.warehouse.create', { action: 'create_warehouse', name: 'W', address: long(1001) }, 'address'],
      ['catalog.location.create', { action: 'create_location', name: 'L' }, 'warehouse_id'],
      ['catalog.location.create', { action: 'create_location', warehouse_id: wh.warehouse.id }, 'name'],
      ['catalog.location.create', { action: 'create_location', warehouse_id: wh.warehouse.id, name: long(201) }, 'name'],
    ];
    // a field failing both branches of a number-or-string union is listed twice (shared field schemas)
    const answers = [];
    for (const [operation, payload, field] of cases) {
      const r = refusal(await svc.call(operation, payload));
      answers.push({
        operation,
        field,
        status: r.status,
        code: r.code,
        fields: [...new Set((r.errors ?? []).map((e) => e.field))],
        named: r.message.includes(field),
      });
    }
    expect(answers).toEqual(
      cases.map(([operation, , field]) => ({ operation, field, status: 400, code: 'validation_failed', fields: [field], named: true })),
    );
    expect(await snapshot(svc)).toEqual(before);
  });
});
