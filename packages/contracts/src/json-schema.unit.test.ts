import Ajv2020 from 'ajv/dist/2020';
import fc from 'fast-check';
import { documentFormats } from './json-schema.fixtures';
import { z } from 'zod';
import { atMost, dateField, dateTimeField, intId, money, notBlank, pageRequest, percentage, plainString, quantity, text } from './fields';
import { jsonSchemaOf } from './json-schema';
import { adjustStockRequest } from './catalog/schemas';
import { setProfileRequest } from './organization/schemas';
import { createPartnerRequest } from './partners/schemas';

/**
 * The JSON Schema the OpenAPI document gives each field against the field's own schema: where the
 * rule fits JSON Schema the two accept exactly the same inputs; where it does not (exponent forms of
 * decimals), everything the document accepts the server accepts too.
 */

const ajv = new Ajv2020({ strict: false, multipleOfPrecision: 6 });
for (const [name, validate] of Object.entries(documentFormats)) ajv.addFormat(name, { type: 'string', validate });
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
  it('text: no control characters (tab and line breaks in multi-line text), no lone surrogates or noncharacters', () => {
    for (const schema of [text(20), text(20, 'multiline')]) {
      const validate = documented(schema);
      run(textInput, (v) => expect([v, validate(v)]).toEqual([v, schema.safeParse(v).success]));
    }
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

  it('decimals: what the document accepts, the server accepts; past a bound or the scale, both refuse', () => {
    for (const [schema, scale] of [
      [money(), 2],
      [money({ min: 0 }), 2],
      [money({ positive: true }), 2],
      [quantity({ positive: true }), 4],
      [quantity({ min: 0 }), 4],
      [percentage(), 4],
    ] as const) {
      const json = jsonSchemaOf(schema, 'input') as { anyOf: Array<{ pattern?: string }> };
      const validate = documented(schema);
      const pattern = new RegExp(json.anyOf[1]!.pattern as string, 'u');
      run(
        fc.stringMatching(pattern),
        (v) => {
          if (validate(v)) expect([v, schema.safeParse(v).success]).toEqual([v, true]);
        },
        300,
      );
      // Magnitudes where a validator's floating-point multipleOf is still exact (JSON Schema's is decimal).
      run(
        fc.integer({ min: -(10 ** 9), max: 10 ** 9 }).map((n) => Number((n / 10 ** scale).toFixed(scale))),
        (v) => expect([v, validate(v)]).toEqual([v, schema.safeParse(v).success]),
        500,
      );
      agree(schema, [1e12, -1e12, 1e10, 100, 100.0001, 0, -0, 0.001, 0.00001, 1.005]);
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
