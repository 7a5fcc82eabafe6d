import { catalog, parseWith } from '@bo/contracts';
import { decideNewProduct, decideNewProductAlone, newProductRecord } from './decide-new-product';

const request = (payload: Record<string, unknown>) => {
  const parsed = parseWith(catalog.createProduct.request, { org_id: 1, name: 'Hammer', ...payload });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
};

describe('deciding a new product', () => {
  it('given a name alone, when created, then it is a taxable inventory product at 0, with nothing else', () => {
    expect(decideNewProduct(request({}))).toEqual({
      product: {
        name: 'Hammer',
        description: null,
        price: '0',
        cost: '0',
        sku: null,
        barcode: null,
        image: null,
        taxable: true,
        tax_rate: '0',
        tax_category: null,
        type: 'inventory',
        uom: null,
        min_stock_level: null,
        max_stock_level: null,
      },
      category: null,
      initialStock: null,
    });
  });

  it('given fields, a category and stock, when created, then they are kept (a SKU trimmed, blanks none) and the stock placed', () => {
    const plan = decideNewProduct(
      request({ price: 12.5, sku: ' HAM-1 ', barcode: ' ', category_id: '5', stock: 3, tax_rate: 19, tax_category: 'S' }),
    );
    expect(plan).toMatchObject({
      product: { price: '12.5', sku: 'HAM-1', barcode: null, tax_rate: '19', tax_category: 'S' },
      category: '5',
      initialStock: '3',
    });
    expect(decideNewProduct(request({ stock: 0 })).initialStock).toBeNull();
  });

  it('given stock for a service, levels that contradict, or a category that does not go with the rate, when created, then it is refused', () => {
    expect(() => decideNewProduct(request({ type: 'service', stock: 1 }))).toThrow(
      expect.objectContaining({ refusal: 'product.stockOnStocklessProduct' }),
    );
    expect(() => decideNewProduct(request({ min_stock_level: 5, max_stock_level: 1 }))).toThrow(
      expect.objectContaining({ refusal: 'product.stockLevels' }),
    );
    expect(() => decideNewProduct(request({ tax_category: 'S' }))).toThrow(expect.objectContaining({ refusal: 'product.taxDefault' }));
  });

  it('given no stock to place and no location named, when created, then it is stored alone under the category named by its id', () => {
    expect(decideNewProductAlone(request({ category_id: '5', stock: 0 }))).toMatchObject({ name: 'Hammer', category_id: 5 });
    expect(decideNewProductAlone(request({}))).toMatchObject({ category_id: null });
  });

  it('given stock to place, or a location or warehouse named, when created, then it goes the usual way', () => {
    expect(decideNewProductAlone(request({ stock: 2 }))).toBeNull();
    expect(decideNewProductAlone(request({ location_id: '3' }))).toBeNull();
    expect(decideNewProductAlone(request({ warehouse_id: '3' }))).toBeNull();
  });

  it('given a category that is no id, when created, then it is not found', () => {
    expect(() => decideNewProductAlone(request({ category_id: 'abc' }))).toThrow(
      expect.objectContaining({ refusal: 'category.categoryNotFound', message: 'Category abc not found' }),
    );
  });

  it('given a product stored, when answered, then its record holds what the store made, no stock, at version 1', () => {
    const product = decideNewProductAlone(request({ price: '12.50', category_id: '5', min_stock_level: 2 }))!;
    expect(
      newProductRecord(product, { id: 42, categoryName: 'Tools', createdAt: '2026-03-01T10:00:00', updatedAt: '2026-03-01T10:00:00' }),
    ).toEqual({
      id: 42,
      name: 'Hammer',
      description: null,
      price: 12.5,
      cost: 0,
      category: 'Tools',
      category_id: '5',
      stock: 0,
      sku: null,
      barcode: null,
      image: null,
      taxable: true,
      tax_rate: 0,
      tax_category: null,
      type: 'inventory',
      uom: null,
      min_stock_level: 2,
      max_stock_level: null,
      created_at: '2026-03-01T10:00:00',
      updated_at: '2026-03-01T10:00:00',
      version: 1,
    });
  });
});
