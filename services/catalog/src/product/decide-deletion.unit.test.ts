import { decideProductDeletion, type DeletionState } from './decide-deletion';
import type { ProductView } from './product.record';

/** A live product at version 3 with stock, in a category, as its delete reads it. */
const product: ProductView = {
  id: 42,
  org_id: 7,
  name: 'Hammer',
  description: null,
  price: '12.50',
  cost: '7.00',
  category_id: 5,
  category_name: 'Tools',
  sku: 'HAM-1',
  barcode: null,
  image: null,
  taxable: true,
  tax_rate: '19.0000',
  tax_category: null,
  type: 'inventory',
  uom: null,
  min_stock_level: null,
  max_stock_level: null,
  created_at: new Date('2026-01-01T08:00:00Z'),
  updated_at: new Date('2026-02-01T09:30:00Z'),
  deleted_at: null,
  version: 3,
  stock: '4.5000',
};

describe('deciding a product delete', () => {
  it('given a live product with variants, when deleted, then it and its variants go, and its event tells it at the next version', () => {
    const state: DeletionState = { product, variantIds: [8, 9] };
    expect(decideProductDeletion(state, 42)).toEqual({
      productId: 42,
      variantIds: [8, 9],
      record: {
        id: 42,
        name: 'Hammer',
        description: null,
        price: 12.5,
        cost: 7,
        category: 'Tools',
        category_id: '5',
        stock: 4.5,
        sku: 'HAM-1',
        barcode: null,
        image: null,
        taxable: true,
        tax_rate: 19,
        tax_category: null,
        type: 'inventory',
        uom: null,
        min_stock_level: null,
        max_stock_level: null,
        created_at: '2026-01-01T08:00:00',
        updated_at: '2026-02-01T09:30:00',
        version: 4,
      },
    });
  });

  it('given a product without variants, when deleted, then only it goes', () => {
    expect(decideProductDeletion({ product, variantIds: [] }, 42).variantIds).toEqual([]);
  });

  it('given no live product of that id, when deleted, then it is not found', () => {
    expect(() => decideProductDeletion({ product: null, variantIds: [] }, 42)).toThrow(
      expect.objectContaining({ refusal: 'product.productNotFound', code: 'not_found', message: 'Product 42 not found' }),
    );
  });
});
