import { canonicalJson, KEY_REUSED_REPLY, replayOf, requestHash } from './idempotency';

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

describe('the answer to a recorded key', () => {
  const key = {
    orgId: 1,
    key: 'k',
    operation: 'partners.partner.create',
    hash: requestHash('partners.partner.create', { a: 1 }),
    ttlHours: 24,
  };
  const reply = { ok: true as const, status: 200, body: { id: 7 } };

  it('is the recorded reply for the same operation and body', () => {
    expect(replayOf({ operation: key.operation, hash: key.hash, reply }, key)).toBe(reply);
  });

  it('is 422 idempotency_key_reused for another body or another operation', () => {
    expect(replayOf({ operation: key.operation, hash: requestHash(key.operation, { a: 2 }), reply }, key)).toEqual(KEY_REUSED_REPLY);
    expect(replayOf({ operation: 'catalog.product.create', hash: key.hash, reply }, key)).toEqual(KEY_REUSED_REPLY);
    expect(KEY_REUSED_REPLY).toMatchObject({ ok: false, status: 422, code: 'idempotency_key_reused' });
  });
});
