import { invoiceIdOf, invoiceRequest } from './fixtures';
import { parseOptions, UsageError } from './options';
import { attachRatios, evaluateTargets, type ScenarioResult } from './report';
import { interleave, scenarioNames } from './scenarios';
import { percentile } from './stats';

/** The benchmark's pure parts; no test here measures or asserts a timing of the system. */
describe('benchmark harness', () => {
  const names = [...scenarioNames, 'idempotency-cost'];

  it('reads --only, --modes, --json and BENCH_SECONDS, and refuses unknown names', () => {
    const opts = parseOptions(['--only', 'list-partners,validate-invoice', '--modes', 'rabbitmq', '--json', 'out.json'], names, {
      BENCH_SECONDS: '4',
    });
    expect(opts).toMatchObject({ seconds: 4, secondsAt1: 2, modes: ['rabbitmq'], json: 'out.json' });
    expect([...(opts.only ?? [])]).toEqual(['list-partners', 'validate-invoice']);
    expect(parseOptions([], names, {})).toMatchObject({ seconds: 10, secondsAt1: 5, modes: ['rabbitmq', 'in-process'], only: undefined });
    expect(() => parseOptions(['--only', 'list'], names, {})).toThrow(UsageError);
    expect(() => parseOptions(['--modes', 'kafka'], names, {})).toThrow(UsageError);
    expect(() => parseOptions([], names, { BENCH_SECONDS: '0' })).toThrow(UsageError);
  });

  it('spreads the sampled records evenly through a pool, losing none', () => {
    const merged = interleave([1, 2, 3, 4, 5, 6, 7, 8], ['a', 'b'] as unknown as number[]);
    expect(merged).toHaveLength(10);
    expect(merged.filter((x) => typeof x === 'string')).toEqual(['a', 'b']);
    expect(merged.indexOf('a' as unknown as number)).toBeGreaterThan(0);
    expect(merged.indexOf('b' as unknown as number)).toBeGreaterThan(merged.indexOf('a' as unknown as number) + 2);
    expect(interleave([1, 2], [])).toEqual([1, 2]);
  });

  it('takes nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBe(0);
  });

  it('builds a valid create-invoice request and reads the id back from a reply', () => {
    expect(JSON.parse(invoiceRequest(42))).toMatchObject({
      org_id: '1',
      partner: '42',
      invoicetype: 'invoiceout',
      line_items: expect.any(Array),
    });
    expect(JSON.parse(invoiceRequest(42)).line_items).toHaveLength(3);
    expect(invoiceIdOf('{"statusCode":200,"headers":{},"body":{"message":"ok","invoice":{"id":1234,"orgid":1}}}')).toBe(1234);
    expect(invoiceIdOf('{"statusCode":400}')).toBeUndefined();
  });

  it('compares each run with the ceiling of its scenario and connections, and judges the targets from the ratios', () => {
    const run = (over: Partial<ScenarioResult>): ScenarioResult => ({
      mode: 'rabbitmq',
      scenario: 'list-partners',
      title: 'list',
      ceiling: 'list-partners',
      connections: 32,
      rps: 100,
      p50: 10,
      p99: 40,
      ok: 1000,
      non2xx: 0,
      timeouts: 0,
      connectionErrors: 0,
      errors: 0,
      statusCodes: { 200: 1000 },
      seconds: 10,
      ...over,
    });
    const ceiling = [
      run({ mode: 'ceiling', rps: 200, p99: 20 }),
      run({ mode: 'ceiling', scenario: 'create-partner', ceiling: 'create-partner', rps: 200 }),
    ];
    const results = [
      run({ rps: 170, p99: 29 }),
      run({ scenario: 'create-partner', ceiling: 'create-partner', rps: 50, p99: 120, errors: 2, non2xx: 2 }),
      run({ scenario: 'create-partner', ceiling: 'create-partner', connections: 1, p50: 3 }),
    ];
    attachRatios(results, ceiling);
    expect(results[0]?.ratio).toEqual({ rps: 0.85, p99: 1.45 });
    const targets = evaluateTargets({ results, settings: { seconds: 10, secondsAt1: 5, modes: ['rabbitmq'], scenarios: [] } });
    const met = (prefix: string) => targets.find((t) => t.target.startsWith(prefix))?.byMode.rabbitmq?.met;
    expect(met('list partners ≥ 0.8')).toBe(true);
    expect(met('list partners p99')).toBe(true);
    expect(met('create partner ≥ 0.5')).toBe(false);
    expect(met('create partner p99')).toBe(false);
    expect(met('create partner p50')).toBe(true);
    expect(met('zero errors')).toBe(false);
    expect(met('create invoice')).toBeUndefined();
  });
});
