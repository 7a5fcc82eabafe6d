import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { alternationRefusal, asRound, rotate } from './alternate';
import { compareWithBaseline, formatBaseline } from './baseline';
import { processLabel } from './cpu';
import { invoiceIdOf, invoiceRequest } from './fixtures';
import { amountRunSeconds } from './load';
import { LAUNCHER_ENTRY, parseOptions, UsageError } from './options';
import { attachRatios, evaluateTargets, formatReport, targetCell, type Report } from './report';
import type { ScenarioResult } from './result';
import { combineRounds, formatSpread } from './rounds';
import { interleave, scenarioNames } from './scenarios';
import { countIn } from './statements';
import { median, percentile } from './stats';

/** The benchmark's pure parts; no test here measures or asserts a timing of the system. */
describe('benchmark harness', () => {
  const names = [...scenarioNames, 'idempotency-cost'];

  it("counts a database's statements per request from PostgreSQL's log, continuation lines joined and literals folded", () => {
    const log = [
      '2026-11-26 07:00:00.001 UTC [11] postgres@bo_x LOG:  statement: BEGIN;',
      '2026-11-26 07:00:00.002 UTC [11] postgres@bo_x LOG:  execute s1: select * from invoices',
      "\t  where id = $1 and status = 'open'",
      "2026-11-26 07:00:00.003 UTC [11] postgres@bo_x DETAIL:  parameters: $1 = '5'",
      '2026-11-26 07:00:00.004 UTC [12] postgres@bo_other LOG:  statement: select 1',
      "2026-11-26 07:00:00.005 UTC [11] postgres@bo_x LOG:  execute <unnamed>: select * from invoices where id = $1 and status = 'paid'",
      '2026-11-26 07:00:00.006 UTC [11] postgres@bo_x LOG:  statement: COMMIT;',
    ].join('\n');
    const count = countIn(log, 'bo_x', 2);
    expect(count.perRequest).toBe(2);
    expect(count.statements).toEqual([
      { perRequest: 1, sql: "select * from invoices where id = $N and status = '?'" },
      { perRequest: 0.5, sql: 'BEGIN;' },
      { perRequest: 0.5, sql: 'COMMIT;' },
    ]);
  });

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
    expect(parseOptions([], names, {}).rounds).toBe(1);
    expect(parseOptions(['--rounds', '3'], names, {}).rounds).toBe(3);
    for (const bad of ['0', '1.5', 'x', '10']) expect(() => parseOptions(['--rounds', bad], names, {})).toThrow(UsageError);
  });

  it('reads --alternate N as N slices judged like rounds, and refuses it beside --rounds or out of range', () => {
    expect(parseOptions(['--alternate', '4'], names, {})).toMatchObject({ alternate: 4, rounds: 4 });
    expect(parseOptions([], names, {}).alternate).toBeUndefined();
    for (const bad of ['1', '21', '2.5', 'x']) expect(() => parseOptions(['--alternate', bad], names, {})).toThrow(UsageError);
    expect(() => parseOptions(['--alternate', '3', '--rounds', '3'], names, {})).toThrow(/two ways of repeating/);
    // --replicas N: one replica and N side by side, unless the modes are named.
    expect(parseOptions(['--replicas', '2'], names, {})).toMatchObject({ modes: ['rabbitmq', 'replicated'], replicas: 2 });
    expect(parseOptions(['--modes', 'replicated'], names, {})).toMatchObject({ modes: ['replicated'], replicas: 2 });
    expect(parseOptions([], names, {}).replicas).toBe(1);
    for (const bad of ['0', '9', '1.5', 'x']) expect(() => parseOptions(['--replicas', bad], names, {})).toThrow(UsageError);
    // --floor-required: a second floor beside the first, in the slices of one sitting only.
    expect(parseOptions(['--alternate', '2', '--floor-required'], names, {})).toMatchObject({ floorRequired: true });
    expect(parseOptions(['--alternate', '2'], names, {}).floorRequired).toBeUndefined();
    expect(() => parseOptions(['--floor-required'], names, {})).toThrow(/--alternate N/);
  });

  it('reads --baseline DIR as a built checkout compared in alternating slices, refusing an unbuilt one or --rounds', () => {
    const built = mkdtempSync(join(tmpdir(), 'bench-baseline-'));
    try {
      expect(() => parseOptions(['--baseline', built], names, {})).toThrow(/build that checkout first/);
      mkdirSync(join(built, 'apps', 'launcher', 'dist'), { recursive: true });
      writeFileSync(join(built, LAUNCHER_ENTRY), '');
      expect(parseOptions(['--baseline', built], names, {})).toMatchObject({ baseline: built, alternate: 6, rounds: 6 });
      expect(parseOptions(['--baseline', built, '--alternate', '3'], names, {})).toMatchObject({ alternate: 3, rounds: 3 });
      expect(() => parseOptions(['--baseline', built, '--rounds', '3'], names, {})).toThrow(/alternating slices/);
      // --subject: another built checkout measured in this one's place, only against a baseline.
      expect(parseOptions(['--baseline', built, '--subject', built], names, {})).toMatchObject({ baseline: built, subject: built });
      expect(() => parseOptions(['--subject', built], names, {})).toThrow(/give both/);
      expect(() => parseOptions(['--baseline', built, '--subject', join(built, 'nowhere')], names, {})).toThrow(
        /--subject .*build that checkout first/,
      );
    } finally {
      rmSync(built, { recursive: true, force: true });
    }
  });

  it("compares each slice's run with the baseline's run of the same slice, and takes the median of those ratios", () => {
    // The machine slows down from slice to slice; each slice's ratio stays 0.9 but one, where a burst hit this system.
    const slices = [1000, 800, 600].map((base, i) => ({
      ceiling: [],
      floor: [],
      results: [
        scenarioRun({ rps: i === 1 ? base * 0.5 : base * 0.9, cpu: cpu(i === 1 ? 8 : 4.4) }),
        scenarioRun({ mode: 'baseline', rps: base, cpu: cpu(4), errors: i }),
        scenarioRun({ mode: 'in-process', rps: 5000 }),
      ],
    }));
    const [row] = compareWithBaseline(slices, 'rabbitmq');
    expect(row?.rpsBySlice).toEqual([0.9, 0.5, 0.9]);
    expect(row?.rps).toBeCloseTo(0.9, 9);
    expect(row?.cpu).toBeCloseTo(1.1, 9);
    expect(row?.errors).toBe(3);
    expect(formatBaseline(compareWithBaseline(slices, 'rabbitmq'), '/b').join('\n')).toContain(
      '| list | 32 | 0.900 | 0.90, 0.50, 0.90 | 1.100 | 3 |',
    );
  });

  it('alternates only scenarios that leave what the others read alone, rotating the stacks so none always follows another', () => {
    expect(alternationRefusal(['list-partners', 'get-invoice', 'stock-adjustment'])).toBeUndefined();
    expect(alternationRefusal(['create-partner', 'create-partner-key', 'create-invoice'])).toBeUndefined();
    expect(alternationRefusal(['list-partners', 'validate-invoice', 'register-payment'])).toBeUndefined();
    // Each create would add to the partners the next slice's list counts and sorts.
    expect(alternationRefusal(['list-partners', 'create-partner-key'])).toMatch(/create-partner-key with list-partners/);
    expect(rotate(['mq', 'mem', 'ceiling', 'floor'], 0)).toEqual(['mq', 'mem', 'ceiling', 'floor']);
    expect(rotate(['mq', 'mem', 'ceiling', 'floor'], 1)).toEqual(['mem', 'ceiling', 'floor', 'mq']);
    expect(rotate(['mq', 'mem', 'ceiling', 'floor'], 5)).toEqual(['mem', 'ceiling', 'floor', 'mq']);
    expect(rotate([], 3)).toEqual([]);
  });

  it("splits a slice's runs into a round whose ratios are taken against that slice's own ceiling and floor", () => {
    const slice = asRound([
      scenarioRun({ rps: 1600, p99: 30 }),
      scenarioRun({ mode: 'ceiling', rps: 2000, p99: 20 }),
      scenarioRun({ mode: 'floor', rps: 1800, p99: 25 }),
      scenarioRun({ mode: 'in-process', rps: 2400, p99: 16 }),
    ]);
    expect(slice.ceiling.map((r) => r.mode)).toEqual(['ceiling']);
    expect(slice.floor[0]?.ratio).toEqual({ rps: 0.9, p99: 1.25 });
    expect(slice.results.map((r) => r.mode)).toEqual(['rabbitmq', 'in-process']);
    expect(slice.results[0]?.ratio).toMatchObject({ rps: 0.8, p99: 1.5 });
    expect(slice.results[0]?.ratio?.floor).toBeCloseTo(0.889, 3);
    expect(slice.results[1]?.ratio).toMatchObject({ rps: 1.2, p99: 0.8 });
    expect(slice.results[1]?.ratio?.floor).toBeCloseTo(1.333, 3);
  });

  it('folds rounds into medians of each figure and ratio, summing errors, so one noisy round does not decide a target', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([undefined, 5])).toBe(5);
    expect(median([])).toBeUndefined();

    // Three rounds of list partners: the second is a noisy one (its ceiling fast, the system slow).
    const round = (ceilingRps: number, ceilingP99: number, floorP99: number, rps: number, p99: number, errors = 0) => {
      const ceiling = [scenarioRun({ mode: 'ceiling', rps: ceilingRps, p99: ceilingP99 })];
      const floor = [scenarioRun({ mode: 'floor', rps: ceilingRps / 2, p99: floorP99 })];
      const results = [scenarioRun({ rps, p99, errors, non2xx: errors, statusCodes: { 200: 1000, ...(errors ? { 503: errors } : {}) } })];
      attachRatios(floor, ceiling);
      attachRatios(results, ceiling, floor);
      return { ceiling, floor, results };
    };
    const rounds = [round(4000, 20, 28, 2000, 28), round(4400, 16, 31, 1500, 40, 2), round(3600, 21, 25, 1900, 30)];
    const folded = combineRounds(rounds);
    const system = folded.results[0] as ScenarioResult;
    expect(system).toMatchObject({ rps: 1900, p99: 30, errors: 2, ok: 3000, statusCodes: { 200: 3000, 503: 2 }, seconds: 30 });
    // Each ratio is taken in its own round (1.4, 2.5, 1.43), then the median: not the median p99 over the median ceiling p99.
    expect(system.ratio?.p99).toBeCloseTo(1.43, 2);
    expect(system.ratio?.rps).toBeCloseTo(0.5, 2);
    expect(folded.floor[0]?.ratio?.p99).toBeCloseTo(1.4, 2);
    const targets = evaluateTargets({ ...folded, settings: { seconds: 10, secondsAt1: 5, rounds: 3, modes: ['rabbitmq'], scenarios: [] } });
    const cell = (prefix: string) => targets.find((t) => t.target.startsWith(prefix))?.byMode.rabbitmq;
    expect(cell('list partners p99')).toMatchObject({ met: true, floor: { reachable: true } });
    expect(cell('zero errors')).toEqual({ value: '2 errors in list-partners@32', met: false });
    const clean = combineRounds([rounds[0]!, rounds[2]!]);
    const cleanTargets = evaluateTargets({
      ...clean,
      settings: { seconds: 10, secondsAt1: 5, rounds: 2, modes: ['rabbitmq'], scenarios: [] },
    });
    expect(cleanTargets.find((t) => t.target.startsWith('zero errors'))?.byMode.rabbitmq).toEqual({
      value: '0 errors in 1 runs × 2 rounds',
      met: true,
    });

    expect(formatSpread([rounds[0]!])).toEqual([]);
    const spread = formatSpread(rounds);
    expect(spread).toContain('| floor | list | 0.50, 0.50, 0.50 | 1.40, 1.94, 1.19 |');
    expect(spread).toContain('| rabbitmq | list | 0.50, 0.34, 0.53 | 1.40, 2.50, 1.43 |');
    const text = formatReport(
      {
        startedAt: '',
        finishedAt: '',
        elapsedSeconds: 1,
        settings: { seconds: 10, secondsAt1: 5, rounds: 3, modes: ['rabbitmq'], scenarios: [] },
        ...folded,
        idempotency: [],
        rounds,
      },
      targets,
    );
    expect(text).toContain('3 rounds: every table and target below is the median');
    expect(text).toContain('## Spread over the 3 rounds');
  });

  it('spreads the sampled records evenly through a pool, losing none', () => {
    const merged = interleave([1, 2, 3, 4, 5, 6, 7, 8], ['a', 'b'] as unknown as number[]);
    expect(merged).toHaveLength(10);
    expect(merged.filter((x) => typeof x === 'string')).toEqual(['a', 'b']);
    expect(merged.indexOf('a' as unknown as number)).toBeGreaterThan(0);
    expect(merged.indexOf('b' as unknown as number)).toBeGreaterThan(merged.indexOf('a' as unknown as number) + 2);
    expect(interleave([1, 2], [])).toEqual([1, 2]);
  });

  it("times a run of a fixed number of requests to its last reply, not to autocannon's next whole second", () => {
    expect(amountRunSeconds(2.01, 10_000, 11_100)).toBe(1.1);
    expect(amountRunSeconds(2.01, 10_000, 13_000)).toBe(2.01);
    expect(amountRunSeconds(2.01, 10_000, undefined)).toBeUndefined();
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
    const run = scenarioRun;
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

  it('compares the floor with the ceiling and each run with the floor of its scenario, and says which targets the floor itself misses', () => {
    const run = (over: Partial<ScenarioResult>) =>
      scenarioRun({ scenario: 'create-partner', title: 'create partner', ceiling: 'create-partner', ...over });
    const ceiling = [run({ mode: 'ceiling', rps: 1000, p99: 20 }), run({ mode: 'ceiling', connections: 1, rps: 500, p50: 1 })];
    const floor = [run({ mode: 'floor', rps: 400, p99: 120, cpu: cpu(1) }), run({ mode: 'floor', connections: 1, rps: 200, p50: 3 })];
    const results = [
      run({ rps: 200, p99: 150, cpu: cpu(1.5) }),
      run({ connections: 1, rps: 100, p50: 5 }),
      // No floor of its own (the floor sends no Idempotency-Key): compared with the ceiling alone.
      run({ scenario: 'create-partner-key', title: 'create partner, Idempotency-Key', rps: 150 }),
    ];
    attachRatios(floor, ceiling);
    attachRatios(results, ceiling, floor);
    expect(floor[0]?.ratio).toEqual({ rps: 0.4, p99: 6 });
    // Machine CPU per request 3 ms against the floor's 2: 1.5 × its CPU.
    expect(results[0]?.ratio).toEqual({ rps: 0.2, p99: 7.5, floor: 0.5, floorCpu: 1.5 });
    expect(results[1]?.ratio?.floor).toBe(0.5);
    expect(results[2]?.ratio).toEqual({ rps: 0.15, p99: 2 });

    const settings = { seconds: 10, secondsAt1: 5, modes: ['rabbitmq' as const], scenarios: [] };
    const targets = evaluateTargets({ results, settings, floor });
    const cell = (prefix: string) => targets.find((t) => t.target.startsWith(prefix))?.byMode.rabbitmq;
    // 0.4 × is below the 0.5 × target: the design's minimum work alone misses it.
    expect(cell('create partner ≥ 0.5')).toEqual({ value: '0.20 × (200 req/s)', met: false, floor: { value: '0.40 ×', reachable: false } });
    expect(targetCell(cell('create partner ≥ 0.5'))).toBe('**NOT met**: 0.20 × (200 req/s); out of reach: floor 0.40 ×');
    expect(cell('create partner p99')?.floor).toEqual({ value: '120.0 ms', reachable: false });
    expect(targetCell(cell('create partner p50'))).toBe('**NOT met**: 5.0 ms; floor 3.0 ms');
    expect(cell('create partner with Idempotency-Key ≥ 0.5')?.floor).toBeUndefined();
    expect(targetCell({ value: '0.19 × (390 req/s)', met: false, floor: { value: '0.62 ×', reachable: true } })).toBe(
      '**NOT met**: 0.19 × (390 req/s); floor 0.62 ×',
    );
    expect(targetCell(undefined)).toBe('not measured');

    const report: Report = {
      startedAt: '2026-11-22T00:00:00.000Z',
      finishedAt: '2026-11-22T00:01:00.000Z',
      elapsedSeconds: 60,
      settings,
      ceiling,
      floor,
      results,
      idempotency: [],
    };
    const text = formatReport(report, targets);
    expect(text).toContain('## Floor:');
    expect(text).toContain('| create partner | 32 | 400 | 0.40 | 10.0 | 120.0 | 6.00 | 0 |');
    expect(text).toContain('| scenario | conns | req/s | × ceiling | × floor | × floor CPU | p50 ms |');
    expect(text).toContain('| create partner | 32 | 200 | 0.20 | 0.50 | 1.50 | 10.0 |');
    expect(text).toContain('| create partner | 1 | 100 | 0.20 | 0.50 | — | 5.0 |');
    expect(text).toContain('| create partner, Idempotency-Key | 32 | 150 | 0.15 | — | — |');
    expect(text).not.toContain("Floor with the bar's requirements");
    // The floor with the bar's requirements (--floor-required) gets a table of its own, against the floor.
    const required = [run({ mode: 'floor-required', rps: 360, cpu: cpu(1.1) })];
    attachRatios(required, ceiling, floor);
    expect(required[0]?.ratio).toMatchObject({ floor: 0.9, floorCpu: 1.1 });
    expect(formatReport({ ...report, results: [...results, ...required] }, targets)).toContain(
      '| create partner | 32 | 360 | 0.90 | 10.0 | 40.0 | 0 | 1.10 | 2.20 | 1.10 |',
    );
    // Without a floor the mode tables keep their columns.
    expect(formatReport({ ...report, floor: [] }, targets)).not.toContain('× floor');
  });
});

/** One measured run of a scenario (list partners over RabbitMQ at 32 connections unless said). */
function cpu(processMsPerRequest: number): NonNullable<ScenarioResult['cpu']> {
  return { processMsPerRequest, machineMsPerRequest: processMsPerRequest * 2, machineBusyCores: 1.5, stolenCores: 0 };
}

function scenarioRun(over: Partial<ScenarioResult>): ScenarioResult {
  return {
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
  };
}

describe('processLabel (BENCH_CPU_BY_PROCESS)', () => {
  it('names a service by its folder, the bench by its file, the servers by their program', () => {
    expect(processLabel(['/usr/bin/node', '--max-semi-space-size=32', '/repo/services/invoicing/dist/main.js'])).toBe('node invoicing');
    expect(processLabel(['node', '/repo/apps/launcher/dist/start-system.js'])).toBe('node launcher');
    expect(processLabel(['/opt/node', '/repo/tools/bench/dist/floor/worker.js'])).toBe('node floor/worker.js');
    expect(processLabel(['/opt/node', '--max-semi-space-size=32', '/repo/tools/bench/dist/floor/worker.js', 'invoicing'])).toBe(
      'node floor/worker.js invoicing',
    );
    expect(processLabel(['postgres: 15/main: postgres bo_bench 127.0.0.1(5000) idle'])).toBe('postgres');
    expect(processLabel(['/usr/lib/erlang/erts-12/bin/beam.smp', '-W', 'w'])).toBe('rabbitmq');
    expect(processLabel(['/usr/bin/redis-server'])).toBe('redis-server');
    expect(processLabel([])).toBe('kernel');
  });
});
