import fc from 'fast-check';
import { z } from 'zod';
import { judgeDecimal, money, parseWith, percentage, quantity, type DecimalRule } from './index';

/**
 * The decimal judge reads a number's text once and never writes it out in full. It is checked here
 * against the reference it replaced: the text expanded digit by digit (exact, but as long as the
 * exponent says), then judged on the expansion. For exponents of moderate size both must agree on
 * every input, in every notation; for the rest the judge must still answer, quickly and in little memory.
 */

const SEED = Number(process.env.FC_SEED ?? Date.now() % 2_147_483_647);

// ---- the reference: expand first, then judge ----

function expand(s: string): string {
  if (!/e/i.test(s)) return s.startsWith('.') ? `0${s}` : s.startsWith('-.') ? `-0${s.slice(1)}` : s;
  const [mantissa, expPart] = s.toLowerCase().split('e') as [string, string];
  const exp = Number(expPart);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '');
  const [intPart, fracPart = ''] = digits.split('.') as [string, string?];
  const all = intPart + fracPart;
  const point = intPart.length + exp;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${all}`;
  else if (point >= all.length) out = all + '0'.repeat(point - all.length);
  else out = `${all.slice(0, point)}.${all.slice(point)}`;
  out = out.replace(/^0+(?=\d)/, '');
  if (out.includes('.')) out = out.replace(/0+$/, '').replace(/\.$/, '');
  return negative && out !== '0' ? `-${out}` : out;
}

/** The plain form the judge answers: no leading zeros, no bare point, no sign on a zero; decimal places as they are. */
function plainForm(v: string): string {
  const negative = v.startsWith('-');
  const [int = '', frac = ''] = (negative ? v.slice(1) : v).split('.');
  const digits = `${int.replace(/^0+/, '') || '0'}${frac === '' ? '' : `.${frac}`}`;
  return negative && /[1-9]/.test(digits) ? `-${digits}` : digits;
}

function referenceJudge(input: string | number, rule: DecimalRule): { ok: true; value: string } | { ok: false; problem: string } {
  if (typeof input === 'number' && !Number.isFinite(input)) return { ok: false, problem: 'must be a finite number' };
  const text = typeof input === 'number' ? String(input) : input;
  if (!/^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(text)) return { ok: false, problem: 'must be a decimal number' };
  const v = expand(text);
  const dot = v.indexOf('.');
  if ((dot < 0 ? 0 : v.length - dot - 1) > rule.maxScale)
    return { ok: false, problem: `must have at most ${rule.maxScale} decimal places` };
  if (rule.min !== undefined && Number(v) < rule.min) return { ok: false, problem: `must be at least ${rule.min}` };
  if (rule.positive && !(Number(v) > 0)) return { ok: false, problem: 'must be greater than 0' };
  if (!(Math.abs(Number(v)) < rule.max)) return { ok: false, problem: `must be less than ${rule.max} in magnitude` };
  return { ok: true, value: plainForm(v) };
}

// ---- decimals in every notation the fields accept, and some they do not ----

const digitsOf = (max: number) => fc.string({ unit: fc.constantFrom('0', '0', '0', '1', '5', '9', '3'), maxLength: max });
const decimalText = fc
  .record({
    sign: fc.constantFrom('', '', '-'),
    int: digitsOf(16),
    frac: fc.option(digitsOf(12), { nil: undefined }),
    exp: fc.option(
      fc.record({
        e: fc.constantFrom('e', 'E'),
        sign: fc.constantFrom('', '+', '-'),
        zeros: fc.constantFrom('', '0', '000'),
        value: fc.integer({ min: 0, max: 40 }),
      }),
      { nil: undefined },
    ),
  })
  .filter(({ int, frac }) => int.length > 0 || (frac ?? '').length > 0)
  .map(
    ({ sign, int, frac, exp }) =>
      `${sign}${int}${frac === undefined ? '' : `.${frac}`}${exp ? `${exp.e}${exp.sign}${exp.zeros}${exp.value}` : ''}`,
  );

const rules: Array<[string, DecimalRule]> = [
  ['money', { maxScale: 2, max: 1e12 }],
  ['money, at least 0', { maxScale: 2, max: 1e12, min: 0 }],
  ['money, positive', { maxScale: 2, max: 1e12, positive: true }],
  ['quantity', { maxScale: 4, max: 1e10 }],
  ['quantity, positive', { maxScale: 4, max: 1e10, min: 0, positive: true }],
  ['percentage', { maxScale: 4, max: 1e12, min: 0 }],
];

describe('the bounded decimal judge', () => {
  it(`agrees with expanding the text, on acceptance, problem and plain form, for every notation (seed ${SEED})`, () => {
    fc.assert(
      fc.property(decimalText, fc.constantFrom(...rules), (text, [, rule]) => {
        expect(judgeDecimal(text, rule)).toEqual(referenceJudge(text, rule));
      }),
      { numRuns: 5000, seed: SEED },
    );
  });

  it(`agrees with expanding the shortest text of a JSON number, for any double (seed ${SEED})`, () => {
    const numbers = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer({ min: -1e6, max: 1e6 }).map((n) => n / 100),
      fc.integer({ min: -1e9, max: 1e9 }).map((n) => n / 10_000),
      fc.constantFrom(0, -0, 1e21, 1e-7, 2 ** 53 + 2, 999999999999.99, 1e12, 9999999999.9999, 5e-324, Number.MAX_VALUE),
    );
    fc.assert(
      fc.property(numbers, fc.constantFrom(...rules), (n, [, rule]) => {
        expect(judgeDecimal(n, rule)).toEqual(referenceJudge(n, rule));
      }),
      { numRuns: 3000, seed: SEED },
    );
  });

  it(`refuses any exponent too large to write out by its range, any too small by its scale, and reads any zero as 0 (seed ${SEED})`, () => {
    const money2: DecimalRule = { maxScale: 2, max: 1e12, min: 0 };
    fc.assert(
      fc.property(
        fc.stringMatching(/^[1-9]\d{0,30}(\.\d{0,30})?$/),
        fc.oneof(
          fc.integer({ min: 1_000, max: 2_000_000_000 }).map(String),
          fc.bigInt({ min: 10n ** 15n, max: 10n ** 400n }).map(String),
          fc.constantFrom('9'.repeat(10_000), `${'0'.repeat(5_000)}1000`),
        ),
        (mantissa, exponent) => {
          expect(judgeDecimal(`${mantissa}e${exponent}`, money2)).toEqual({
            ok: false,
            problem: 'must be less than 1000000000000 in magnitude',
          });
          expect(judgeDecimal(`-${mantissa}E+${exponent}`, money2)).toEqual({ ok: false, problem: 'must be at least 0' });
          expect(judgeDecimal(`${mantissa}e-${exponent}`, money2)).toEqual({ ok: false, problem: 'must have at most 2 decimal places' });
          expect(judgeDecimal(`-0.${'0'.repeat(mantissa.length)}e-${exponent}`, money2)).toEqual({ ok: true, value: '0' });
          expect(judgeDecimal(`0e${exponent}`, money2)).toEqual({ ok: true, value: '0' });
        },
      ),
      { numRuns: 300, seed: SEED },
    );
  });

  it('judges the hostile numbers of a request body', () => {
    const m: DecimalRule = { maxScale: 2, max: 1e12 };
    const cases: Array<[string | number, ReturnType<typeof judgeDecimal>]> = [
      ['1e999999999', { ok: false, problem: 'must be less than 1000000000000 in magnitude' }],
      ['1e500000000', { ok: false, problem: 'must be less than 1000000000000 in magnitude' }],
      ['1e-999999999', { ok: false, problem: 'must have at most 2 decimal places' }],
      ['1E+308', { ok: false, problem: 'must be less than 1000000000000 in magnitude' }],
      [1e308, { ok: false, problem: 'must be less than 1000000000000 in magnitude' }],
      [Number.POSITIVE_INFINITY, { ok: false, problem: 'must be a finite number' }],
      ['-0', { ok: true, value: '0' }],
      ['-0.00', { ok: true, value: '0.00' }],
      ['-0e5', { ok: true, value: '0' }],
      [-0, { ok: true, value: '0' }],
      ['9'.repeat(10_000), { ok: false, problem: 'must be less than 1000000000000 in magnitude' }],
      [`0.${'0'.repeat(10_000)}1`, { ok: false, problem: 'must have at most 2 decimal places' }],
      [`${'0'.repeat(10_000)}12.50`, { ok: true, value: '12.50' }],
      [`12.5${'0'.repeat(10_000)}e0`, { ok: true, value: '12.5' }],
      [`1${'0'.repeat(10_000)}e-10000`, { ok: true, value: '1' }],
      [`1e${'9'.repeat(10_000)}`, { ok: false, problem: 'must be less than 1000000000000 in magnitude' }],
      [`1e-${'9'.repeat(10_000)}`, { ok: false, problem: 'must have at most 2 decimal places' }],
      [`1e${'0'.repeat(10_000)}2`, { ok: true, value: '100' }],
      ['0x10', { ok: false, problem: 'must be a decimal number' }],
      ['Infinity', { ok: false, problem: 'must be a decimal number' }],
    ];
    for (const [input, expected] of cases) {
      const label = String(input).slice(0, 40);
      expect({ label, judged: judgeDecimal(input, m) }).toEqual({ label, judged: expected });
    }
    // A JSON number past 2^53 is the double JSON.parse made of it: judged as that double, whose text is exact.
    expect(judgeDecimal(JSON.parse('9007199254740993') as number, { maxScale: 0, max: 1e16 })).toEqual({
      ok: true,
      value: '9007199254740992',
    });
    expect(judgeDecimal(JSON.parse('12345678901234567890') as number, m)).toEqual({
      ok: false,
      problem: 'must be less than 1000000000000 in magnitude',
    });
  });

  it('judges a megabyte of digits, or an exponent of a billion, without allocating its expansion', () => {
    const hostile = [
      '1e500000000',
      '-1e999999999',
      '1e-999999999',
      `0.${'0'.repeat(1_000_000)}e999999999`,
      '7'.repeat(1_000_000),
      `${'7'.repeat(1_000_000)}e-999990`,
    ];
    const m: DecimalRule = { maxScale: 2, max: 1e12 };
    const before = process.memoryUsage();
    const started = process.hrtime.bigint();
    const answers = [];
    for (let i = 0; i < 20; i++) for (const text of hostile) answers.push(judgeDecimal(text, m));
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const after = process.memoryUsage();
    // Expanding "1e500000000" alone takes half a gigabyte; 120 answers here take a few megabytes at most.
    expect(after.heapUsed - before.heapUsed).toBeLessThan(64 * 1024 * 1024);
    expect(after.rss - before.rss).toBeLessThan(128 * 1024 * 1024);
    // Linear time: a few milliseconds per megabyte, with a wide margin for a loaded machine.
    expect(ms).toBeLessThan(5_000);
    expect(answers.map((a) => (a.ok ? a.value : a.problem)).slice(0, hostile.length)).toEqual([
      'must be less than 1000000000000 in magnitude',
      'must be less than 1000000000000 in magnitude',
      'must have at most 2 decimal places',
      '0',
      'must be less than 1000000000000 in magnitude',
      'must have at most 2 decimal places',
    ]);
  });
});

describe('decimal fields', () => {
  const body = z.object({ credit_limit: money({ min: 0 }), price: quantity().optional(), rate: percentage().optional() });

  it('refuse a hostile number with one message naming the field', () => {
    const errors = (v: Record<string, unknown>) => {
      const r = parseWith(body, { credit_limit: 1, ...v });
      return r.ok ? [] : r.errors;
    };
    expect(errors({ credit_limit: '1e999999999' })).toEqual([
      { field: 'credit_limit', message: 'credit_limit must be less than 1000000000000 in magnitude' },
    ]);
    expect(errors({ credit_limit: '-1e999999999' })).toEqual([{ field: 'credit_limit', message: 'credit_limit must be at least 0' }]);
    expect(errors({ price: '1e-999999999' })).toEqual([{ field: 'price', message: 'price must have at most 4 decimal places' }]);
    expect(errors({ rate: '1E+308' })).toEqual([{ field: 'rate', message: 'rate must be less than 1000000000000 in magnitude' }]);
    expect(errors({ rate: '100.0001' })).toEqual([{ field: 'rate', message: 'rate must be at most 100' }]);
    // What JSON.parse makes of 1e400.
    expect(errors({ credit_limit: Number.POSITIVE_INFINITY })).toEqual([
      {
        field: 'credit_limit',
        message: 'credit_limit must be a finite number (a JSON number of magnitude 1.8e308 or more reads as infinite)',
      },
    ]);
  });

  it('answer accepted values in their plain form', () => {
    const parsed = (v: unknown) => {
      const r = parseWith(body, { credit_limit: v });
      return r.ok ? r.value.credit_limit : r.errors;
    };
    expect(parsed('12.30')).toBe('12.30');
    expect(parsed(' 12.5e1 ')).toBe('125');
    expect(parsed('1.5E-1')).toBe('0.15');
    expect(parsed('-0')).toBe('0');
    expect(parsed('007.50')).toBe('7.50');
    expect(parsed('.5')).toBe('0.5');
    expect(parsed('5.')).toBe('5');
    expect(parsed(0.1)).toBe('0.1');
    expect(parsed(1e11)).toBe('100000000000');
  });
});
