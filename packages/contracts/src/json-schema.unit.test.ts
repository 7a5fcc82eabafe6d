import fc from 'fast-check';
import { z } from 'zod';
import { extensionsIn, strangersAjv } from './testing/strangers-ajv';
import { atMost, dateField, dateTimeField, intId, money, notBlank, pageRequest, percentage, plainString, quantity, text } from './fields';
import { jsonSchemaOf } from './json-schema';
import { buildOpenApi } from './openapi';
import { adjustStockRequest } from './catalog/schemas';
import { setProfileRequest } from './organization/schemas';
import { createPartnerRequest } from './partners/schemas';

/**
 * The JSON Schema the OpenAPI document gives each field against the field's own schema, judged by a
 * stranger's Ajv (strict, untuned): where the rule fits a portable JSON Schema the two accept exactly
 * the same inputs; where it does not, everything the document accepts the server accepts too, and
 * the schema names what the server judges beyond it (`x-text-rule`, `x-decimal-places`).
 */

const ajv = strangersAjv(extensionsIn(buildOpenApi()));
const documented = (schema: z.ZodType) => ajv.compile(jsonSchemaOf(schema, 'input'));
const field = (object: z.ZodObject, name: string) => object.shape[name] as z.ZodType;

/** Asserts that the document and the schema agree on every input. */
function agree(schema: z.ZodType, inputs: readonly unknown[]): void {
  const validate = documented(schema);
  const disagreements = inputs.filter((v) => validate(v) !== schema.safeParse(v).success);
  expect(disagreements.map((v) => JSON.stringify(v))).toEqual([]);
}

const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2_147_483_647);
const run = <T>(arb: fc.Arbitrary<T>, check: (v: T) => void, numRuns = 2000) => {
  try {
    fc.assert(fc.property(arb, check), { numRuns, seed });
  } catch (err) {
    throw new Error(`seed ${seed} (FUZZ_SEED=${seed} replays): ${String(err)}`, { cause: err });
  }
};

const spaces = ['', ' ', '\u00A0', '\uFEFF', '\u3000', '\u2028', '\t', '\n', '\r\n', '\u0085', '\u200B'];
const unusual = [
  '\u0000',
  '\u0001',
  '\u001F',
  '\u007F',
  '\u0085',
  '\u009F',
  '\uD800',
  '\uDFFF',
  '\uFFFE',
  '\uFFFF',
  '😀',
  '\r',
  '\t',
  '\n',
];
const textInput = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.array(fc.constantFrom(...unusual, 'a', ' ', '\r\n', 'é'), { maxLength: 8 }).map((a) => a.join('')),
);

describe('the OpenAPI document states each field rule the server enforces', () => {
  it('text: no control characters (tab and line breaks in multi-line text), no noncharacters; lone surrogates beyond the pattern', () => {
    for (const schema of [text(20), text(20, 'multiline')]) {
      const validate = documented(schema);
      expect(jsonSchemaOf(schema, 'input')['x-text-rule']).toMatch(/unpaired UTF-16 surrogate/);
      // The server refuses what the document refuses, and beyond it only what `x-text-rule` names.
      run(textInput, (v) => {
        const server = schema.safeParse(v).success;
        // With the u flag a surrogate pair is one character: what is left of category Cs is unpaired.
        if (validate(v) && !server) expect([v, /\p{Cs}/u.test(v)]).toEqual([v, true]);
        else expect([v, validate(v)]).toEqual([v, server]);
      });
    }
    expect(documented(text(20))('a\uD800')).toBe(true);
    expect(text(20).safeParse('a\uD800').success).toBe(false);
  });

  it('lengths count characters as JSON Schema does: a surrogate pair is one', () => {
    agree(text(3), ['😀😀😀', '😀😀😀😀', 'abc', 'abcd', 'é😀a']);
    agree(plainString().check(atMost(2)), ['😀😀', '😀😀😀']);
  });

  it('not blank: something other than white space, after trimming', () => {
    const schema = plainString().trim().check(notBlank());
    const validate = documented(schema);
    run(
      fc.array(fc.constantFrom(...spaces, 'a'), { maxLength: 6 }).map((a) => a.join('')),
      (v) => expect([v, validate(v)]).toEqual([v, schema.safeParse(v).success]),
    );
  });

  it('dates: every real calendar day from 1900 to 9999 and nothing else, leap days included', () => {
    const years = [1896, 1899, 1900, 1901, 1904, 1996, 2000, 2023, 2024, 2100, 2400, 9996, 9999, 10000];
    const inputs: string[] = [];
    for (const y of years)
      for (let m = 0; m <= 13; m++)
        for (let d = 0; d <= 32; d++) inputs.push(`${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);
    agree(dateField, [...inputs, '2024-1-05', ' 2024-01-05', '2024-01-05T00:00:00', '']);
    agree(dateTimeField, [
      ...inputs.filter((_, i) => i % 7 === 0).map((d) => `${d}T12:30:59`),
      '2024-02-29T00:00:00',
      '2023-02-29T00:00:00',
      '2024-01-01T24:00:00',
      '2024-01-01T23:60:00',
      '2024-01-01T23:59:60',
      '2024-01-01T23:59:59Z',
      '2024-01-01 23:59:59',
    ]);
  });

  it('ids: a positive 32-bit integer, as a number or a decimal string with white space around it', () => {
    const inputs = [
      0,
      1,
      -1,
      1.5,
      2147483647,
      2147483648,
      '0',
      '00',
      '1',
      '007',
      ' 12 ',
      '\u00A012\u3000',
      '\t12',
      '-1',
      '+1',
      '1e3',
      '2147483647',
    ];
    agree(intId, [...inputs, '02147483647', '2147483648', '9999999999', '1.0', '', ' ']);
    run(fc.bigInt({ min: -5n, max: 2n ** 32n }).map(String), (v) => agree(intId, [v, ` ${v}`, `000${v}`]), 500);
    agree(pageRequest.page_size, [0, 1, 100, 101, '0', '1', '100', '0100', '101', ' 5']);
    agree(pageRequest.page_number, [0, 1, 2147483647, 2147483648, '0', '1', '2147483647', '2147483648']);
  });

  it('decimals: what the document accepts, the server accepts; beyond it only a JSON number within x-decimal-places', () => {
    for (const [schema, scale] of [
      [money(), 2],
      [money({ min: 0 }), 2],
      [money({ positive: true }), 2],
      [quantity({ positive: true }), 4],
      [quantity({ min: 0 }), 4],
      [percentage(), 4],
    ] as const) {
      const json = jsonSchemaOf(schema, 'input') as { anyOf: Array<{ pattern?: string }>; 'x-decimal-places': number };
      expect(json['x-decimal-places']).toBe(scale);
      const validate = documented(schema);
      const pattern = new RegExp(json.anyOf[1]!.pattern as string, 'u');
      run(
        fc.stringMatching(pattern),
        (v) => {
          if (validate(v)) expect([v, schema.safeParse(v).success]).toEqual([v, true]);
        },
        300,
      );
      // A JSON number: the document takes the whole ones the server takes; the server also reads one
      // with up to `x-decimal-places` decimals, which the document leaves to words.
      const alike = (v: number) => {
        const server = schema.safeParse(v).success;
        expect([v, validate(v)]).toEqual([v, server && Number.isInteger(v)]);
        if (server) expect([v, (String(v).split('.')[1]?.length ?? 0) <= scale]).toEqual([v, true]);
      };
      run(
        fc.integer({ min: -(10 ** 9), max: 10 ** 9 }).map((n) => Number((n / 10 ** scale).toFixed(scale))),
        alike,
        500,
      );
      run(fc.integer({ min: -(10 ** 12), max: 10 ** 12 }), alike, 200);
      [1e12, -1e12, 1e10, 100, 100.0001, 0, -0, 0.001, 0.00001, 1.005, 0.14, 0.57].forEach(alike);
    }
  });

  it('codes and addresses: countries, currencies, BICs, emails, IBANs', () => {
    const org = setProfileRequest;
    const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');
    const pairs = letters.flatMap((a) => letters.map((b) => a + b));
    agree(field(org, 'country'), [...pairs, ...pairs.map((p) => ` ${p.toLowerCase()} `), 'FRA', 'F', '', null]);
    agree(field(org, 'default_currency'), [...pairs.flatMap((p) => letters.map((c) => p + c)), ' eur ', 'EU', 'EURO']);
    agree(field(org, 'bic'), ['DEUTDEFF', 'deutdeff500', 'DEUTXXFF', 'DEUTDEF', 'DEUTDEFF50', ' BNPAFRPP ', 'BNPA1RPP']);
    const emails = ['a@b.co', ' a@b.co ', 'a@b', 'a b@c.d', '@b.co', 'a@@b.co', 'a@b.c\u00A0', 'é@ü.de', ''];
    agree(field(org, 'email'), emails);
    agree(field(createPartnerRequest, 'email'), emails);
    agree(field(org, 'iban'), [
      'FR7630006000011234567890189',
      'fr76 3000 6000 0112 3456 7890 189',
      'FR7630006000011234567890188',
      'XX00123',
    ]);
    agree(field(createPartnerRequest, 'currency'), ['usd', ' EUR ', 'US', 'USDX', '12A']);
  });

  it('a stock adjustment names at least one location and at most 200', () => {
    const locations = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`L${i}`, 1]));
    agree(field(adjustStockRequest, 'qty_locations'), [{}, locations(1), locations(200), locations(201), { ' ': 1 }]);
  });
});
