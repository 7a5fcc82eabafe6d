import { checkShape, fieldName, printable, requestShapeLimits } from './shape';

function nested(depth: number, kind: 'array' | 'object'): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = kind === 'array' ? [v] : { a: v };
  return v;
}

describe('checkShape', () => {
  it('lets every legitimate request through', () => {
    const lines = Array.from({ length: 500 }, (_, i) => ({
      product_id: String(i),
      quantity: 1,
      price: 2,
      tax_rate: 0,
      tax_included: false,
    }));
    expect(checkShape({ org_id: 1, line_items: lines, recurring: { enabled: true } })).toBeUndefined();
    expect(checkShape({ org_id: 1, partner_ids: Array.from({ length: 500 }, (_, i) => i + 1) })).toBeUndefined();
    expect(
      checkShape({ org_id: 1, qty_locations: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`loc${i}`, i])) }),
    ).toBeUndefined();
    expect(checkShape('a string')).toBeUndefined();
    expect(checkShape(null)).toBeUndefined();
  });

  it('accepts the limits themselves and refuses one beyond, naming where', () => {
    const { maxDepth, maxArrayItems, maxObjectKeys } = requestShapeLimits;
    expect(checkShape(nested(maxDepth, 'object'))).toBeUndefined();
    expect(checkShape(nested(maxDepth + 1, 'object'))).toEqual({
      field: Array(maxDepth).fill('a').join('.'),
      message: `${Array(maxDepth).fill('a').join('.')} is nested deeper than ${maxDepth} levels`,
    });
    expect(checkShape({ x: [nested(maxDepth, 'array')] })?.field).toBe(`x.0${'.0'.repeat(maxDepth - 2)}`);
    expect(checkShape({ a: { ids: new Array(maxArrayItems).fill(0) } })).toBeUndefined();
    expect(checkShape({ a: { ids: new Array(maxArrayItems + 1).fill(0) } })).toEqual({
      field: 'a.ids',
      message: `a.ids must have at most ${maxArrayItems} items`,
    });
    const wide = Object.fromEntries(Array.from({ length: maxObjectKeys + 1 }, (_, i) => [`k${i}`, i]));
    expect(checkShape(wide)).toEqual({ field: 'body', message: `body must have at most ${maxObjectKeys} fields` });
  });

  it('walks a 1 MiB nesting without recursion', () => {
    const deep = JSON.parse('['.repeat(512 * 1024) + ']'.repeat(512 * 1024)) as unknown;
    expect(checkShape(deep)?.message).toMatch(/nested deeper than 32 levels$/);
    // With limits that let it all through, the walk itself still does not overflow.
    expect(checkShape(deep, { maxDepth: Infinity, maxArrayItems: 1, maxObjectKeys: 1 })).toBeUndefined();
  });
});

describe('fieldName and printable', () => {
  it('write hostile keys as escapes and cut long ones', () => {
    expect(fieldName(['line_items', 0, 'price'])).toBe('line_items.0.price');
    expect(fieldName([])).toBe('body');
    expect(fieldName(['a\u0000b', '\uD800'])).toBe('a\\u0000b.\\uD800');
    expect(printable('x'.repeat(100), 10)).toBe(`${'x'.repeat(10)}…`);
    expect(printable(`${'x'.repeat(9)}😀`, 10)).toBe(`${'x'.repeat(9)}…`);
    expect(printable('ok 😀\n', 10)).toBe('ok 😀\\u000A');
  });
});
