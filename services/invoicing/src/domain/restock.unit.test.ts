import { dec } from '@bo/kernel';
import { restockProblems, stockedQuantity } from './restock';

describe('what a validated line moves in stock', () => {
  const line = { catalog_checked: true, quantity: '2.5' };

  test('its quantity, on every type; nothing for a credit note that returns no goods or a line never checked', () => {
    expect(stockedQuantity({ invoicetype: 'invoiceout', restock: true }, line).toFixed()).toBe('2.5');
    expect(stockedQuantity({ invoicetype: 'creditout', restock: true }, line).toFixed()).toBe('2.5');
    expect(stockedQuantity({ invoicetype: 'creditout', restock: false }, line).toFixed()).toBe('0');
    expect(stockedQuantity({ invoicetype: 'creditin', restock: false }, line).toFixed()).toBe('0');
    expect(stockedQuantity({ invoicetype: 'invoiceout', restock: true }, { ...line, catalog_checked: false }).toFixed()).toBe('0');
  });
});

describe('a credit note returns at most what its invoice delivered, per product', () => {
  const delivered = [
    { product_id: '5', quantity: '1' },
    { product_id: '6', quantity: '3' },
    { product_id: '6', quantity: '2' },
  ];

  test('1,000 widgets of a one-widget sale: the line is refused by its quantity', () => {
    expect(restockProblems('INV-00001', [{ product_id: '5', quantity: '1000', index: 0 }], delivered, [])).toEqual([
      {
        field: 'line_items.0.quantity',
        message:
          'line_items.0.quantity: 1000 of product 5 would return more than INV-00001 delivered (1 delivered, 0 returned already, 1 may still come back)',
      },
    ]);
  });

  test('up to what was delivered passes, lines of one product added up', () => {
    expect(restockProblems('INV-00001', [{ product_id: '5', quantity: '1', index: 0 }], delivered, [])).toEqual([]);
    expect(
      restockProblems(
        'INV-00001',
        [
          { product_id: '6', quantity: '4', index: 0 },
          { product_id: '6', quantity: '1', index: 1 },
        ],
        delivered,
        [],
      ),
    ).toEqual([]);
  });

  test('earlier returns count: the line that takes the product past the rest is named', () => {
    const problems = restockProblems(
      'INV-00001',
      [
        { product_id: '5', quantity: '0', index: 0 },
        { product_id: '6', quantity: '2', index: 1 },
        { product_id: '6', quantity: '0.0001', index: 2 },
      ],
      delivered,
      [{ product_id: '6', quantity: '3' }],
    );
    expect(problems.map((p) => p.field)).toEqual(['line_items.2.quantity']);
    expect(problems[0]?.message).toContain('(5 delivered, 3 returned already, 0 may still come back)');
  });

  test('a product the invoice never delivered cannot come back', () => {
    expect(restockProblems('INV-00001', [{ product_id: '9', quantity: '1', index: 3 }], delivered, [])[0]?.field).toBe(
      'line_items.3.quantity',
    );
  });

  test('exact to the fourth decimal of a quantity', () => {
    const fractional = [{ product_id: '5', quantity: dec('1.2345').toFixed() }];
    expect(restockProblems('INV-1', [{ product_id: '5', quantity: '1.2345', index: 0 }], fractional, [])).toEqual([]);
    expect(restockProblems('INV-1', [{ product_id: '5', quantity: '1.2346', index: 0 }], fractional, [])).toHaveLength(1);
  });
});
