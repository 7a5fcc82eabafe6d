import { catalog, parseWith } from '@bo/contracts';
import { decideNewVariant } from './decide-variant';
import { toVariantRecord } from './variant.record';

const request = (payload: Record<string, unknown>) => {
  const parsed = parseWith(catalog.createVariant.request, {
    org_id: 1,
    action: 'create_variant',
    parent_product_id: 42,
    variant_name: 'Red M',
    ...payload,
  });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
};

describe('deciding a new variant', () => {
  it('given options, a SKU and a price, when created, then they are kept trimmed and its cost is left to its product', () => {
    expect(
      decideNewVariant(request({ options: { ' Color ': ' red ', size: 'M' }, sku: ' TS-RED-M ', barcode: ' ', price: '22.50' })),
    ).toEqual({
      parentProductId: 42,
      variantName: 'Red M',
      options: { Color: 'red', size: 'M' },
      optionsKey: '[["color","red"],["size","m"]]',
      price: '22.50',
      cost: null,
      sku: 'TS-RED-M',
      barcode: null,
      taxRate: null,
      taxCategory: null,
    });
  });

  it("given nothing but a name, when created, then it has no options, no SKU and its product's price, cost and taxes", () => {
    expect(decideNewVariant(request({}))).toMatchObject({
      options: {},
      optionsKey: '[]',
      price: null,
      cost: null,
      sku: null,
      taxRate: null,
    });
  });

  it('given an option named twice, when created, then it is refused', () => {
    expect(() => decideNewVariant(request({ options: { Size: 'M', 'size ': 'L' } }))).toThrow(
      expect.objectContaining({
        refusal: 'variant.optionNamedTwice',
        code: 'validation_failed',
        errors: [expect.objectContaining({ field: 'options' })],
      }),
    );
  });

  it('given a tax category without a rate, or one that does not go with the rate, when created, then it is refused', () => {
    expect(() => decideNewVariant(request({ tax_category: 'S' }))).toThrow(
      expect.objectContaining({ refusal: 'variant.taxCategoryWithoutRate' }),
    );
    expect(() => decideNewVariant(request({ tax_rate: 0, tax_category: 'S' }))).toThrow(
      expect.objectContaining({ refusal: 'variant.taxDefault', errors: [expect.objectContaining({ field: 'tax_category' })] }),
    );
    expect(decideNewVariant(request({ tax_rate: 19, tax_category: 'S' }))).toMatchObject({ taxRate: '19', taxCategory: 'S' });
  });

  it("given a stored variant, when answered, then its decimals are numbers and its time the service's text", () => {
    expect(
      toVariantRecord({
        id: 5,
        parent_product_id: 42,
        variant_name: 'Red M',
        options: { color: 'red' },
        price: '22.50',
        cost: '9.00',
        sku: null,
        barcode: '999',
        tax_rate: '7.0000',
        tax_category: null,
        created_at: new Date('2026-03-01T12:00:00Z'),
      }),
    ).toEqual({
      id: 5,
      parent_product_id: 42,
      variant_name: 'Red M',
      options: { color: 'red' },
      price: 22.5,
      cost: 9,
      sku: null,
      barcode: '999',
      tax_rate: 7,
      tax_category: null,
      created_at: '2026-03-01T12:00:00',
    });
  });
});
