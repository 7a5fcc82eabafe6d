import {
  decideProductChanges,
  decideProductEdit,
  editMovesStock,
  type EditProductRequest,
  type ProductEditState,
} from './decide-product-edit';
import type { ProductView } from './product.record';

/** A live inventory product at version 3, with 4.5 in stock, in the category Tools, taxed S at 19. */
const product: ProductView = {
  id: 42,
  org_id: 7,
  name: 'Hammer',
  description: 'Steel',
  price: '12.50',
  cost: '7.00',
  category_id: 5,
  category_name: 'Tools',
  sku: 'HAM-1',
  barcode: '4006381333931',
  image: null,
  taxable: true,
  tax_rate: '19.0000',
  tax_category: 'S',
  type: 'inventory',
  uom: 'pc',
  min_stock_level: '1.0000',
  max_stock_level: null,
  created_at: new Date('2026-01-01T08:00:00Z'),
  updated_at: new Date('2026-02-01T09:30:00Z'),
  deleted_at: null,
  version: 3,
  stock: '4.5000',
};
const state: ProductEditState = { product, category: undefined };
const edit = (fields: Partial<EditProductRequest>) => ({ org_id: 7, product_id: 42, ...fields }) as EditProductRequest;

describe('deciding an edit of a product', () => {
  it("given new fields, when edited, then they replace the product's and its record follows at the next version", () => {
    const decided = decideProductEdit(state, edit({ name: 'Claw hammer', price: '14.90', description: '', barcode: ' 123 ', uom: 'box' }));
    expect(decided).toEqual({
      productId: 42,
      changes: { name: 'Claw hammer', price: '14.90', description: null, barcode: '123', uom: 'box' },
      record: expect.objectContaining({
        id: 42,
        name: 'Claw hammer',
        price: 14.9,
        description: null,
        barcode: '123',
        uom: 'box',
        version: 4,
      }),
    });
    expect(decided?.record).toMatchObject({
      category: 'Tools',
      category_id: '5',
      stock: 4.5,
      sku: 'HAM-1',
      updated_at: '2026-02-01T09:30:00',
    });
  });

  it('given a category of the organization, or none, when set, then the record names it', () => {
    const moved = decideProductEdit({ product, category: { id: 9, name: 'Garden' } }, edit({ category_id: '9' }));
    expect(moved).toMatchObject({ changes: { category_id: 9 }, record: { category_id: '9', category: 'Garden' } });
    const cleared = decideProductEdit(state, edit({ category_id: null }));
    expect(cleared).toMatchObject({ changes: { category_id: null }, record: { category_id: null, category: null } });
  });

  it('given a category the organization has not, when set, then it is not found', () => {
    expect(() => decideProductEdit({ product, category: null }, edit({ category_id: '9' }))).toThrow(
      expect.objectContaining({ refusal: 'category.categoryNotFound', message: 'Category 9 not found' }),
    );
  });

  it('given no such product, when edited, then it is not found', () => {
    expect(() => decideProductEdit({ product: null, category: undefined }, edit({ name: 'X' }))).toThrow(
      expect.objectContaining({ refusal: 'product.productNotFound', message: 'Product 42 not found' }),
    );
  });

  it('given a rate that no longer goes with the category, or levels that contradict, when edited, then it is refused on the field changed', () => {
    expect(() => decideProductEdit(state, edit({ tax_rate: '0' }))).toThrow(
      expect.objectContaining({ refusal: 'product.taxDefault', errors: [expect.objectContaining({ field: 'tax_rate' })] }),
    );
    expect(() => decideProductEdit(state, edit({ tax_category: 'Z' }))).toThrow(
      expect.objectContaining({ refusal: 'product.taxDefault', errors: [expect.objectContaining({ field: 'tax_category' })] }),
    );
    expect(() => decideProductEdit(state, edit({ max_stock_level: '0.5' }))).toThrow(
      expect.objectContaining({ refusal: 'product.stockLevels', message: 'min_stock_level 1 must not exceed max_stock_level 0.5' }),
    );
  });

  it('given a product holding stock, when made a service, then it is refused; with none, it may', () => {
    expect(() => decideProductEdit(state, edit({ type: 'service' }))).toThrow(
      expect.objectContaining({ refusal: 'product.stockStillHeld' }),
    );
    expect(decideProductEdit({ product: { ...product, stock: '0.0000' }, category: undefined }, edit({ type: 'service' }))).toMatchObject({
      changes: { type: 'service' },
      record: { type: 'service', stock: 0 },
    });
  });

  it('given a SKU of another key or a stock, when edited, then it is no edit of fields alone; the same SKU written otherwise is', () => {
    expect(decideProductEdit(state, edit({ sku: 'HAM-2' }))).toBeNull();
    expect(editMovesStock(edit({ stock: '3' }))).toBe(true);
    expect(decideProductEdit(state, edit({ stock: '3' }))).toBeNull();
    expect(decideProductEdit(state, edit({ sku: ' ham-1 ' }))).toMatchObject({ changes: { sku: 'ham-1' }, record: { sku: 'ham-1' } });
    expect(decideProductChanges(product, edit({ sku: '' }), undefined)).toEqual({ changes: { sku: null }, movesSku: true });
  });
});
