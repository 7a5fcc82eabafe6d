import * as testing from '@bo/testkit';
import { catalogService } from '../src/service';
import { defaultLocationId, ok } from './helpers';

/**
 * A service killed after its commit and before its ack gets the command again from RabbitMQ. Each
 * write, delivered twice with the same operation key, answers the same reply and changes the
 * schema once: no second stock move, no second product.
 */
describe('catalog: a redelivered write has no second effect', () => {
  let svc: testing.TestService;
  beforeAll(async () => {
    svc = await testing.startTestService(catalogService);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  let n = 0;
  const product = async () =>
    ok(await svc.call('catalog.product.create', { name: `Widget ${++n}`, sku: `W-${n}`, stock: 5 })).product.id as number;
  const warehouse = async () =>
    ok(await svc.call('catalog.warehouse.create', { action: 'create_warehouse', name: `Depot ${++n}` })).warehouse.id as string;
  const category = async () => ok(await svc.call('catalog.category.create', { name: `Tools ${++n}` })).category.id as string;

  it.each([
    ['catalog.product.create', async () => ({ name: 'Hammer', sku: 'HAM-1', stock: 10, price: '12.50' })],
    ['catalog.product.edit', async () => ({ product_id: await product(), name: 'Renamed', stock: 9 })],
    ['catalog.product.delete', async () => ({ product_id: await product(), delete: true })],
    [
      'catalog.variant.create',
      async () => ({ action: 'create_variant', parent_product_id: await product(), variant_name: 'Large', options: { size: 'L' } }),
    ],
    ['catalog.category.create', async () => ({ name: 'Hardware', code: 'HW' })],
    ['catalog.category.edit', async () => ({ category_id: await category(), name: 'Garden tools' })],
    [
      'catalog.stock.adjust',
      async () => ({ action: 'stock_adjustment', product_id: await product(), qty_locations: { [await defaultLocationId(svc)]: 42 } }),
    ],
    ['catalog.warehouse.create', async () => ({ action: 'create_warehouse', name: 'North' })],
    ['catalog.location.create', async () => ({ action: 'create_location', warehouse_id: await warehouse(), name: 'Shelf B' })],
  ])('%s', async (operation, payload) => {
    const { first, again, afterFirst, afterAgain } = await testing.deliverTwice(svc, operation, await payload());
    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
    expect(afterAgain).toEqual(afterFirst);
  });

  it('applies a stock adjustment delivered twice at once as one move', async () => {
    const id = await product();
    const location = await defaultLocationId(svc);
    const { first, again } = await testing.deliverTwins(svc, 'catalog.stock.adjust', {
      action: 'stock_adjustment',
      product_id: id,
      qty_locations: { [location]: 7 },
    });
    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
    const moves = await svc.db('stock_moves').where({ product_id: id });
    expect(moves).toHaveLength(2); // the initial placement and the one adjustment
  });
});
