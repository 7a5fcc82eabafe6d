import { buildOpenApi } from '@bo/contracts';
import { patternsIn, portabilityProblems } from '../support/pattern-portability';

/**
 * The OpenAPI document's patterns against the regex engines its readers run (pattern-portability.ts):
 * each compiles in ECMA-262 with and without the `u` flag, Python's `re`, Rust's `regex` and PCRE, and
 * the first four judge the same strings alike.
 */
describe('the patterns of the OpenAPI document', () => {
  it('compile in every engine and mean the same in each', () => {
    const patterns = patternsIn(buildOpenApi());
    expect(patterns.length).toBeGreaterThan(20);
    expect(portabilityProblems(patterns)).toEqual([]);
  }, 60_000);

  it('would be told apart: a lone-surrogate range, \\d, a \\u escape, a lookahead, \\s', () => {
    const problems = portabilityProblems(['^[^\\u0000-\\u001F\\uD800-\\uDFFF]*$', '^\\d+$', '^[\\u00A0]$', '^a(?!b)', '^[^\\s]+$']);
    const about = (pattern: string) => problems.filter((p) => p.includes(JSON.stringify(pattern)));
    expect(about('^[^\\u0000-\\u001F\\uD800-\\uDFFF]*$')).toEqual(expect.arrayContaining([expect.stringMatching(/^Rust regex refuses/)]));
    expect(about('^[^\\u0000-\\u001F\\uD800-\\uDFFF]*$')).toEqual(
      expect.arrayContaining([expect.stringMatching(/without u the opposite|without u and/)]),
    );
    expect(about('^\\d+$')).toEqual(expect.arrayContaining([expect.stringMatching(/"\u0663".*Rust regex and Python re the opposite/)]));
    expect(about('^[\\u00A0]$')).toEqual([expect.stringMatching(/^PCRE \(grep -P\) refuses/)]);
    expect(about('^a(?!b)')).toEqual(expect.arrayContaining([expect.stringMatching(/^Rust regex refuses/)]));
    expect(about('^[^\\s]+$').length).toBeGreaterThan(0);
  }, 60_000);
});
