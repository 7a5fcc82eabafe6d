import { canonicalJson, requestHash } from './idempotency';

describe('idempotency request hash', () => {
  it('does not depend on key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
    expect(requestHash('op', { a: 1, b: 2 })).toBe(requestHash('op', { b: 2, a: 1 }));
  });

  it('differs by body and by operation', () => {
    expect(requestHash('op', { a: 1 })).not.toBe(requestHash('op', { a: 2 }));
    expect(requestHash('op1', { a: 1 })).not.toBe(requestHash('op2', { a: 1 }));
  });
});
