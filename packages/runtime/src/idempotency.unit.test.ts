import {
  afterOwnStatement,
  canonicalJson,
  KEY_IN_USE_SQLSTATE,
  KEY_REUSED_REPLY,
  OWN_HOLD_WAITS_MS,
  replayOf,
  requestHash,
} from './idempotency';

describe('idempotency request hash', () => {
  it('does not depend on key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
    expect(requestHash('op', { a: 1, b: 2 })).toBe(requestHash('op', { b: 2, a: 1 }));
  });

  it('writes the text it always wrote, so recorded keys keep matching their retries', () => {
    // The fingerprint's first form: its text is what keys recorded since then were hashed over.
    const reference = (value: unknown): string => {
      if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
      if (value && typeof value === 'object') {
        const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v)}`).join(',')}}`;
      }
      return JSON.stringify(value) ?? 'null';
    };
    let seed = 7;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    const keys = ['a', 'B', 'b', '_', 'é', 'z1', 'z10', 'z2', '\u{1F600}', '\uFFFF', '"q"', '', 'line\nbreak', '10', '9'];
    const leaves = [0, -1.5, 1e21, 'text', 'é\u{1F600}"\\', '', true, false, null, undefined];
    const gen = (depth: number): unknown => {
      const kind = depth > 3 ? 0 : next(4);
      if (kind === 0 || kind === 1) return leaves[next(leaves.length)];
      if (kind === 2) return Array.from({ length: next(4) }, () => gen(depth + 1));
      return Object.fromEntries(Array.from({ length: next(6) }, () => [keys[next(keys.length)], gen(depth + 1)]));
    };
    for (let i = 0; i < 500; i++) {
      const value = gen(0);
      expect(canonicalJson(value)).toBe(reference(value));
    }
    // eslint-disable-next-line no-sparse-arrays
    const holes = [1, , 3];
    expect(canonicalJson({ holes, u: undefined, d: { n: [undefined] } })).toBe(reference({ holes, u: undefined, d: { n: [undefined] } }));
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

describe("the fallback right after the request's own statement failed (afterOwnStatement)", () => {
  const keyInUse = Object.assign(new Error('the key is held'), { code: KEY_IN_USE_SQLSTATE });
  /** A transaction that finds the key held `held` times, then runs. */
  const lockedAfter = (held: number) => {
    let tries = 0;
    return async () => {
      if (tries++ < held) throw keyInUse;
      return 'ran';
    };
  };

  it('asks for the key again while the failed statement may still hold it, and runs once it is free', async () => {
    const pauses: number[] = [];
    const pause = async (ms: number) => void pauses.push(ms);
    await expect(afterOwnStatement(lockedAfter(2), pause)).resolves.toBe('ran');
    expect(pauses).toEqual([5, 10]);
  });

  it("takes a key held past every wait for a twin's: the key-in-use failure goes on, after 155 ms of waits", async () => {
    const pauses: number[] = [];
    const pause = async (ms: number) => void pauses.push(ms);
    await expect(afterOwnStatement(lockedAfter(Infinity), pause)).rejects.toBe(keyInUse);
    expect(pauses).toEqual([...OWN_HOLD_WAITS_MS]);
    expect(pauses.reduce((a, b) => a + b, 0)).toBe(155);
  });

  it('waits for nothing else: any other failure goes on at once', async () => {
    const pauses: number[] = [];
    const refused = new Error('refused');
    await expect(
      afterOwnStatement(
        async () => {
          throw refused;
        },
        async (ms) => void pauses.push(ms),
      ),
    ).rejects.toBe(refused);
    expect(pauses).toEqual([]);
  });
});
