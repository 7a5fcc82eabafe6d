import { adjustedEvent, adjustmentReply, decideAdjustment, requestedLocationIds, type AdjustmentState } from './decide-adjustment';

/** A stocked product with 10 at location 1 (warehouse 7) and 2.5 at location 2 (warehouse 8). */
const stocked: AdjustmentState = {
  product: { id: 42, type: 'inventory', sku: 'W-1' },
  total: '12.5',
  locations: [
    { locationId: 1, warehouseId: 7, quantity: '10' },
    { locationId: 2, warehouseId: 8, quantity: '2.5' },
  ],
  moveId: 900,
  now: new Date('2026-11-28T10:00:00Z'),
  versions: { record: 1, stock: '4' },
};
const ctx = { orgId: 3, productId: 42, userId: 'u1' };

describe('deciding a stock adjustment', () => {
  it('given stock at two locations, when one is counted at a new quantity, then its line and the new total follow', () => {
    const plan = decideAdjustment(stocked, { qty_locations: { '1': '11' }, adjustment_type: ' count ' }, ctx);
    expect(plan.lines.map((l) => [l.locationId, l.previous.toFixed(), l.next.toFixed(), l.change.toFixed()])).toEqual([
      [1, '10', '11', '1'],
    ]);
    expect(plan.stock).toBe('13.5');
    expect(plan.move).toEqual({
      id: 900,
      createdAt: stocked.now,
      orgId: 3,
      productId: 42,
      adjustmentType: 'count',
      reference: null,
      notes: null,
      userId: 'u1',
    });
  });

  it('given a location without stock of the product, when it is set, then it starts from 0', () => {
    const state: AdjustmentState = { ...stocked, locations: [...stocked.locations, { locationId: 5, warehouseId: 7, quantity: '0' }] };
    const plan = decideAdjustment(state, { qty_locations: { '5': '4', '2': '0' } }, ctx);
    // Ids as keys of a JSON object come in ascending order, as the request's object holds them.
    expect(plan.lines.map((l) => [l.locationId, l.change.toFixed()])).toEqual([
      [2, '-2.5'],
      [5, '4'],
    ]);
    expect(plan.stock).toBe('14');
    expect(plan.move.adjustmentType).toBe('adjustment');
  });

  it('given the same quantity, when counted, then the line stays with a zero change (a stock check)', () => {
    const plan = decideAdjustment(stocked, { qty_locations: { '1': '10.000' } }, ctx);
    expect(plan.lines[0]?.change.isZero()).toBe(true);
    expect(plan.stock).toBe('12.5');
  });

  it('given no such product, when adjusted, then it is not found', () => {
    expect(() => decideAdjustment({ ...stocked, product: null, total: '0', locations: [] }, { qty_locations: { '1': '1' } }, ctx)).toThrow(
      expect.objectContaining({ refusal: 'stock.productNotFound', code: 'not_found', message: 'Product 42 not found' }),
    );
  });

  it('given a service product, when adjusted, then it is refused as carrying no stock', () => {
    const state = { ...stocked, product: { id: 42, type: 'service', sku: null } };
    expect(() => decideAdjustment(state, { qty_locations: { '1': '1' } }, ctx)).toThrow(
      expect.objectContaining({
        refusal: 'stock.productCarriesNoStock',
        code: 'invalid_state',
        message: expect.stringMatching(/only inventory products carry stock/),
      }),
    );
  });

  it('given a location of another organization or none, when named, then it is not found by the name given', () => {
    expect(() => decideAdjustment(stocked, { qty_locations: { '1': '1', '99': '1' } }, ctx)).toThrow(
      expect.objectContaining({ refusal: 'stock.locationNotFound', message: 'Location 99 not found' }),
    );
    expect(() => decideAdjustment(stocked, { qty_locations: { abc: '1' } }, ctx)).toThrow(
      expect.objectContaining({ refusal: 'stock.locationNotFound', code: 'not_found', message: 'Location abc not found' }),
    );
    expect(requestedLocationIds({ qty_locations: { abc: '1', '2': '1', '01': '1' } })).toEqual([2]);
  });

  it('given the move decided, then the event and the reply name it, its lines, warehouses and the new total', () => {
    const plan = decideAdjustment(stocked, { qty_locations: { '2': '3' }, reference: 'R', notes: 'n' }, ctx);
    expect(adjustedEvent(plan)).toEqual({
      stock_move_id: '900',
      product_id: 42,
      sku: 'W-1',
      source: 'adjustment',
      adjustment_type: 'adjustment',
      reference: 'R',
      notes: 'n',
      document: null,
      lines: [{ location_id: '2', warehouse_id: '8', previous_stock: 2.5, new_stock: 3, change: 0.5 }],
      stock: 13,
      created_at: expect.stringMatching(/^2026-11-28/),
    });
    expect(adjustmentReply(plan)).toEqual({
      message: 'Stock adjusted successfully',
      stock_move_id: '900',
      details: [{ location_id: '2', previous_stock: 2.5, new_stock: 3, change: 0.5 }],
    });
  });
});
