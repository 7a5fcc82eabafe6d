import fc from 'fast-check';
import { checkShape, requestShapeLimits, type ShapeLimits } from '@bo/contracts';
import { MAX_BODY_VALUES, scanJsonShape } from './json-shape';

const scan = (text: string, limits?: ShapeLimits, maxValues?: number) => scanJsonShape(Buffer.from(text), limits, maxValues);
const { maxDepth, maxArrayItems, maxObjectKeys } = requestShapeLimits;
const deepObject = (depth: number, inner = '1') => `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`;

describe('the shape of a body, read from its bytes before it is parsed', () => {
  it('names the container nested too deep as the contracts do, wherever it stands', () => {
    expect(scan(deepObject(maxDepth))).toBeUndefined();
    const over = deepObject(maxDepth + 1);
    expect(scan(over)).toEqual({ status: 400, error: checkShape(JSON.parse(over)) });
    const inArray = `{"org_id":1,"x":[1,${'['.repeat(maxDepth)}${']'.repeat(maxDepth)}]}`;
    expect(scan(inArray)).toEqual({ status: 400, error: checkShape(JSON.parse(inArray)) });
    expect(scan(inArray)).toMatchObject({ error: { field: expect.stringMatching(/^x\.1(\.0)+$/) } });
    // A 1 MiB `[[[…]]]` stops at the 33rd bracket.
    expect(scan('['.repeat(1 << 20))).toMatchObject({
      status: 400,
      error: { message: expect.stringMatching(/nested deeper than 32 levels$/) },
    });
  });

  it('names an array or object too wide, and a member by its decoded name', () => {
    const ids = `{"org_id":1,"partner_ids":[${Array.from({ length: maxArrayItems + 1 }, (_, i) => i).join(',')}]}`;
    expect(scan(ids)).toEqual({
      status: 400,
      error: { field: 'partner_ids', message: `partner_ids must have at most ${maxArrayItems} items` },
    });
    const wide = `{${Array.from({ length: maxObjectKeys + 1 }, (_, i) => `"k${i}":${i}`).join(',')}}`;
    expect(scan(wide)).toEqual({ status: 400, error: { field: 'body', message: `body must have at most ${maxObjectKeys} fields` } });
    const named = `{"li\\u006ees":{"\\"q\\"":${deepObject(maxDepth - 1)}}}`;
    expect(scan(named)).toEqual({ status: 400, error: checkShape(JSON.parse(named)) });
    expect(scan(named)).toMatchObject({ error: { field: expect.stringMatching(/^lines\."q"\.a\./) } });
  });

  it('refuses with 413 a body of more values than MAX_BODY_VALUES, however they are spread', () => {
    const many = `[${Array.from({ length: 30 }, () => `[${Array(999).fill('{}').join(',')}]`).join(',')}]`;
    expect(checkShape(JSON.parse(many))).toBeUndefined();
    expect(scan(many)).toEqual({ status: 413, message: `Request body holds more than ${MAX_BODY_VALUES} values` });
    expect(scan('[1,2,3]', requestShapeLimits, 4)).toBeUndefined();
    expect(scan('[1,2,3,4]', requestShapeLimits, 4)).toMatchObject({ status: 413 });
  });

  it('reads strings whole: brackets, quotes and escapes inside them are text', () => {
    expect(scan(`{"a":"${'['.repeat(100)}\\"${'{'.repeat(100)}\\\\","b":[]}`)).toBeUndefined();
    expect(scan(`{"a":"x\\\\"}${'['.repeat(40)}`, requestShapeLimits)).toMatchObject({ status: 400 });
    // Unterminated or broken texts end the scan; JSON.parse refuses them after.
    expect(scan('{"a":"never closed [[[[')).toBeUndefined();
    expect(scan(']]]}}}[1]')).toBeUndefined();
  });

  it('agrees with the contracts on whether any JSON value is within small limits', () => {
    const limits: ShapeLimits = { maxDepth: 3, maxArrayItems: 3, maxObjectKeys: 3 };
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        const text = JSON.stringify(value);
        expect([text, scan(text, limits) === undefined]).toEqual([text, checkShape(value, limits) === undefined]);
      }),
      { numRuns: 500, seed: 7 },
    );
  });
});
