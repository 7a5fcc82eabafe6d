import fc from 'fast-check';
import { inexactJsonNumbers } from './json-numbers';

const SEED = Number(process.env.FC_SEED ?? Date.now() % 2_147_483_647);

describe('JSON numbers a double cannot hold as written', () => {
  it('names each number JSON.parse would round, with what it becomes', () => {
    const text = `{"org_id":1,"credit_limit":1e-400,"line_items":[{"price":0.1000000000000000000001},{"quantity":9007199254740993,"x":"1e-400"}],"a\\"b":{"c":[1,2,${'1'.repeat(40)}]}}`;
    expect(inexactJsonNumbers(text, 50)).toEqual([
      { field: 'credit_limit', message: 'credit_limit has more digits than a JSON number holds: it reads as 0; send it as a string' },
      {
        field: 'line_items.0.price',
        message: 'line_items.0.price has more digits than a JSON number holds: it reads as 0.1; send it as a string',
      },
      {
        field: 'line_items.1.quantity',
        message: 'line_items.1.quantity has more digits than a JSON number holds: it reads as 9007199254740992; send it as a string',
      },
      {
        field: 'a"b.c.2',
        message: 'a"b.c.2 has more digits than a JSON number holds: it reads as 1.1111111111111112e+39; send it as a string',
      },
    ]);
    expect(inexactJsonNumbers(text, 2)).toHaveLength(2);
  });

  it('passes every number a double holds, however it is written, and leaves infinities to the schema', () => {
    const exact = [
      '0',
      '-0',
      '0.1',
      '1.10',
      '100e-2',
      '1E+21',
      '-1.5e-7',
      '9007199254740992',
      '123456789012.34',
      '0.000000000000001',
      '1e400',
      '-1e400',
      `0.${'0'.repeat(5000)}1e5001`,
    ];
    expect(inexactJsonNumbers(`{"a":[${exact.join(',')}],"b":"1e-400 \\" 0.1000000000000000000001"}`, 50)).toEqual([]);
  });

  it(`agrees with JSON.parse on every number it reads: flagged exactly when the double it makes is not the value written (seed ${SEED})`, () => {
    const literal = fc
      .record({
        sign: fc.constantFrom('', '-'),
        int: fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9]\d{0,25}$/)),
        frac: fc.option(fc.stringMatching(/^\d{1,25}$/), { nil: undefined }),
        exp: fc.option(fc.integer({ min: -400, max: 400 }), { nil: undefined }),
      })
      .map(({ sign, int, frac, exp }) => `${sign}${int}${frac === undefined ? '' : `.${frac}`}${exp === undefined ? '' : `e${exp}`}`);
    fc.assert(
      fc.property(literal, (lit) => {
        const value = JSON.parse(lit) as number;
        // Exact when the shortest text of the double, read back digit by digit, is the literal's value.
        const roundTrips = !Number.isFinite(value) || exactValue(String(value)) === exactValue(lit);
        expect({ lit, flagged: inexactJsonNumbers(`{"n":${lit}}`, 1).length > 0 }).toEqual({ lit, flagged: !roundTrips });
      }),
      { numRuns: 3000, seed: SEED },
    );
  });
});

/** A decimal literal as an exact fraction numerator over 10^1000 (exponents here stay within ±450). */
function exactValue(lit: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([-+]?\d+))?$/.exec(lit) as RegExpExecArray;
  const digits = BigInt(`${m[2]}${m[3] ?? ''}`);
  const shift = 1000 + Number(m[4] ?? 0) - (m[3] ?? '').length;
  const scaled = shift >= 0 ? digits * 10n ** BigInt(shift) : digits / 10n ** BigInt(-shift);
  return digits === 0n ? '0' : `${m[1]}${scaled}`;
}
