import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { IdempotencyCost } from './idempotency';
import type { ReportsAtScale } from './reports-at-scale';
import type { Mode } from './options';
import type { LagResult } from './lag';
import type { LoadResult } from './load';
import type { ScenarioResult } from './result';
import { formatBaseline, type BaselineComparison } from './baseline';
import { formatSpread, type Round } from './rounds';
import { ratio, round } from './stats';

export interface Report {
  startedAt: string;
  finishedAt: string;
  elapsedSeconds: number;
  settings: {
    seconds: number;
    secondsAt1: number;
    rounds?: number;
    /** The rounds were slices of one sitting, every stack up at once (`--alternate`). */
    alternating?: boolean;
    modes: Mode[];
    /** Instances of every service and of the gateway in the replicated mode. */
    replicas?: number;
    scenarios: string[];
  };
  /** With several rounds, `ceiling`, `floor` and `results` are their medians (rounds.ts) and these the rounds themselves. */
  ceiling: ScenarioResult[];
  /** The floor stand-in's runs (the scenarios that have one), measured right after the ceiling. */
  floor: ScenarioResult[];
  results: ScenarioResult[];
  idempotency: IdempotencyCost[];
  /** The reports over a million journal lines (`reports-at-scale`, RabbitMQ mode, first round). */
  reportsAtScale?: ReportsAtScale;
  rounds?: Round[];
  /** With `--baseline`: the checkout compared with, and the comparison per scenario and connections. */
  baseline?: { dir: string; rows: BaselineComparison[] };
}

/**
 * Sets each result's ratios to its ceiling run of the same connections, and its req/s ratio to the
 * floor run of the same scenario and connections (the floor's own rows get their ceiling ratios).
 */
export function attachRatios(results: ScenarioResult[], ceiling: readonly ScenarioResult[], floor: readonly ScenarioResult[] = []): void {
  for (const r of results) {
    const c = ceiling.find((x) => x.ceiling === r.ceiling && x.connections === r.connections);
    const f = floor.find((x) => x.scenario === r.scenario && x.connections === r.connections);
    const ratios: NonNullable<ScenarioResult['ratio']> = {};
    if (c) Object.assign(ratios, { rps: ratio(r.rps, c.rps), p99: ratio(r.p99, c.p99) });
    if (f) ratios.floor = ratio(r.rps, f.rps);
    const cpu = r.cpu?.machineMsPerRequest;
    const floorCpu = f?.cpu?.machineMsPerRequest;
    if (cpu !== undefined && floorCpu !== undefined) ratios.floorCpu = ratio(cpu, floorCpu);
    if (c || f) r.ratio = ratios;
  }
}

export interface TargetRow {
  target: string;
  /** Per mode: what was measured and whether it meets the target (undefined: not measured). */
  byMode: Partial<Record<Mode, TargetCell>>;
}

export interface TargetCell {
  value: string;
  met?: boolean;
  /**
   * The floor's own figure for the same target (the design's minimum work on this machine), and
   * whether it meets it: when it does not, the target is out of reach of the design here.
   */
  floor?: { value: string; reachable: boolean };
}

const MODE_TITLES: Record<Mode, string> = { rabbitmq: 'RabbitMQ', 'in-process': 'in-process', replicated: 'RabbitMQ, replicated' };

/** A mode's title; the replicated one says how many instances of everything ran. */
function modeTitle(mode: Mode, settings: Report['settings']): string {
  return mode === 'replicated' && settings.replicas
    ? `RabbitMQ, ${settings.replicas} replicas of every service and gateway`
    : MODE_TITLES[mode];
}

/** The performance targets (docs/performance.md), each evaluated per mode from this run's results. */
export function evaluateTargets(report: Pick<Report, 'results' | 'settings'> & Partial<Pick<Report, 'floor'>>): TargetRow[] {
  const modes = report.settings.modes;
  const find = (mode: Mode, scenario: string, connections: number) =>
    report.results.find((r) => r.mode === mode && r.scenario === scenario && r.connections === connections);
  const floorOf = (scenario: string, connections: number) =>
    report.floor?.find((r) => r.scenario === scenario && r.connections === connections);
  const row = (target: string, evaluate: (mode: Mode) => TargetCell | undefined): TargetRow => ({
    target,
    byMode: Object.fromEntries(modes.map((m) => [m, evaluate(m) ?? { value: 'not measured' }])),
  });
  /** The cell, with the floor's own figure beside it when the scenario has a floor. */
  const withFloor = (cell: TargetCell, floor: TargetCell['floor']): TargetCell => (floor ? { ...cell, floor } : cell);
  const atLeast = (scenario: string, connections: number, min: number) => (mode: Mode) => {
    const r = find(mode, scenario, connections);
    if (!r || r.ratio?.rps === undefined) return undefined;
    const f = floorOf(scenario, connections)?.ratio?.rps;
    return withFloor(
      { value: `${fmt(r.ratio.rps, 2)} × (${fmt(r.rps)} req/s)`, met: r.ratio.rps >= min },
      f === undefined ? undefined : { value: `${fmt(f, 2)} ×`, reachable: f >= min },
    );
  };
  const latency = (scenario: string, connections: number, key: 'p50' | 'p99', max: number) => (mode: Mode) => {
    const r = find(mode, scenario, connections);
    const f = floorOf(scenario, connections);
    return (
      r &&
      withFloor({ value: `${fmt(r[key], 1)} ms`, met: r[key] <= max }, f && { value: `${fmt(f[key], 1)} ms`, reachable: f[key] <= max })
    );
  };

  const rows: TargetRow[] = [
    row('list partners ≥ 0.8 × the ceiling (req/s, 32 conns)', atLeast('list-partners', 32, 0.8)),
    row('list partners p99 ≤ 1.5 × the ceiling p99 (32 conns)', (mode) => {
      const r = find(mode, 'list-partners', 32);
      if (!r || r.ratio?.p99 === undefined) return undefined;
      const f = floorOf('list-partners', 32)?.ratio?.p99;
      return withFloor(
        { value: `${fmt(r.ratio.p99, 2)} × (${fmt(r.p99, 1)} ms)`, met: r.ratio.p99 <= 1.5 },
        f === undefined ? undefined : { value: `${fmt(f, 2)} ×`, reachable: f <= 1.5 },
      );
    }),
  ];
  for (const [scenario, label] of [
    ['create-partner', 'create partner'],
    ['create-partner-key', 'create partner with Idempotency-Key'],
  ] as const) {
    rows.push(row(`${label} ≥ 0.5 × the ceiling (req/s, 32 conns)`, atLeast(scenario, 32, 0.5)));
    rows.push(row(`${label} p99 ≤ 100 ms (32 conns)`, latency(scenario, 32, 'p99', 100)));
    rows.push(row(`${label} p50 ≤ 4 ms at 1 connection`, latency(scenario, 1, 'p50', 4)));
  }
  rows.push(row('create invoice (3 lines) ≥ 0.4 × the ceiling (req/s, 32 conns)', atLeast('create-invoice', 32, 0.4)));
  rows.push(row('validate invoice ≥ 0.3 × the ceiling (req/s, 32 conns)', atLeast('validate-invoice', 32, 0.3)));
  rows.push(
    row('validate → partner balance lag p99 ≤ 250 ms (32 conns)', (mode) => {
      const lag = find(mode, 'validate-invoice', 32)?.lag;
      if (!lag || lag.samples === 0) return undefined;
      return {
        value: `${fmt(lag.p99, 1)} ms (${lag.samples} samples${lag.lost ? `, ${lag.lost} never seen` : ''})`,
        met: lag.p99 <= 250 && lag.lost === 0,
      };
    }),
  );
  rows.push(
    row('zero errors in every scenario', (mode) => {
      const runs = report.results.filter((r) => r.mode === mode);
      if (runs.length === 0) return undefined;
      const failing = runs.filter((r) => r.errors > 0);
      const rounds = report.settings.rounds ?? 1;
      const total = failing.reduce((s, r) => s + r.errors, 0);
      return {
        value: failing.length
          ? `${total} errors in ${failing.map((r) => `${r.scenario}@${r.connections}`).join(', ')}`
          : `0 errors in ${runs.length} runs${rounds > 1 ? ` × ${rounds} ${report.settings.alternating ? 'slices' : 'rounds'}` : ''}`,
        met: failing.length === 0,
      };
    }),
  );
  // Per core: requests per CPU-second of the whole machine (system, database, broker and load generator alike).
  rows.push(
    row('in-process no slower per core than RabbitMQ (32 conns, req per machine CPU-second)', (mode) => {
      if (mode !== 'in-process') return modes.includes('in-process') ? { value: '—' } : undefined;
      const pairs = report.results
        .filter((r) => r.mode === 'in-process' && r.connections === 32)
        .map((mem) => ({ mem, mq: find('rabbitmq', mem.scenario, 32) }))
        .filter((p) => p.mq?.cpu && p.mem.cpu)
        .map((p) => ({ scenario: p.mem.scenario, factor: p.mq!.cpu!.machineMsPerRequest / p.mem.cpu!.machineMsPerRequest }));
      if (pairs.length === 0) return undefined;
      const worst = pairs.reduce((a, b) => (b.factor < a.factor ? b : a));
      const slower = pairs.filter((p) => p.factor < 1);
      return {
        value: `${pairs.length - slower.length} of ${pairs.length} scenarios; lowest ${fmt(worst.factor, 2)} × (${worst.scenario})`,
        met: slower.length === 0,
      };
    }),
  );
  return rows;
}

/** The console report: the ceiling, the floor, a table per mode with ratios, the idempotency cost and the targets. */
export function formatReport(report: Report, targets: readonly TargetRow[]): string {
  const s = report.settings;
  const out: string[] = [
    `# Benchmark ${report.startedAt}`,
    '',
    `${s.seconds} s per 32-connection run, ${s.secondsAt1} s per 1-connection run; node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}); ` +
      `the whole bench took ${Math.floor(report.elapsedSeconds / 60)} min ${Math.round(report.elapsedSeconds % 60)} s.`,
    'req/s counts 2xx replies; latencies are per HTTP request; "× ceiling" divides by the stand-in run of the same scenario and connections;',
    "CPU ms/req: the system's own processes (or the stand-in's), and the whole machine (everything, load generator included);",
    `stolen cores: CPU time the hypervisor gave other guests while this one wanted it (of ${cpus().length} cores; not in the machine CPU); runs with much of it are slowed alike and not comparable.`,
  ];
  if (report.rounds && report.rounds.length > 1) {
    const noun = s.alternating ? 'slices' : 'rounds';
    out.push(
      s.alternating
        ? `${report.rounds.length} alternating slices: every stack up at once, each slice running them in turn seconds apart (the order rotating); every table and target below is the median over the slices of each figure, each ratio taken within its own slice; errors are summed.`
        : `${report.rounds.length} rounds: every table and target below is the median over the rounds of each figure, each ratio taken within its own round; errors are summed.`,
      '',
      ...formatSpread(report.rounds, noun),
    );
  }
  if (report.ceiling.length) {
    out.push(
      '',
      '## Ceiling: Express 5 stand-in → amqplib direct reply-to → worker with manual acks, same request and reply sizes, no handler, no database',
      '',
    );
    out.push(
      '| scenario | conns | req/s | p50 ms | p99 ms | errors | stand-in CPU ms/req | machine CPU ms/req | stolen cores |',
      '|---|---|---|---|---|---|---|---|---|',
    );
    for (const r of report.ceiling) {
      out.push(
        `| ${r.title} | ${r.connections} | ${fmt(r.rps)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${errorsOf(r)} | ${fmt(r.cpu?.processMsPerRequest, 2)} | ${fmt(r.cpu?.machineMsPerRequest, 2)} | ${fmt(r.cpu?.stolenCores, 2)} |`,
      );
    }
  }
  if (report.floor.length) out.push('', ...formatFloor(report.floor));
  const floorColumn = report.floor.length > 0;
  for (const mode of s.modes) {
    const rows = report.results.filter((r) => r.mode === mode);
    if (!rows.length) continue;
    out.push('', `## ${modeTitle(mode, s)} mode`, '');
    out.push(
      `| scenario | conns | req/s | × ceiling |${floorColumn ? ' × floor | × floor CPU |' : ''} p50 ms | p99 ms | p99 × ceiling | errors | system CPU ms/req | machine CPU ms/req | stolen cores |`,
      `|---|---|---|---|${floorColumn ? '---|---|' : ''}---|---|---|---|---|---|---|`,
    );
    for (const r of rows) {
      const floorCell = floorColumn
        ? ` ${r.ratio?.floor === undefined ? '—' : fmt(r.ratio.floor, 2)} | ${r.ratio?.floorCpu === undefined ? '—' : fmt(r.ratio.floorCpu, 2)} |`
        : '';
      out.push(
        `| ${r.title} | ${r.connections} | ${fmt(r.rps)} | ${fmt(r.ratio?.rps, 2)} |${floorCell} ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.ratio?.p99, 2)} | ${errorsOf(r)} | ${fmt(r.cpu?.processMsPerRequest, 2)} | ${fmt(r.cpu?.machineMsPerRequest, 2)} | ${fmt(r.cpu?.stolenCores, 2)} |`,
      );
    }
    const lags = rows.filter((r) => r.lag);
    for (const r of lags) {
      const l = r.lag as LagResult;
      out.push(
        '',
        `Validation → partner balance lag, ${r.connections} conns: p50 ${fmt(l.p50, 1)} ms, p99 ${fmt(l.p99, 1)} ms, max ${fmt(l.max, 1)} ms over ${l.samples} sampled validations${l.lost ? ` (${l.lost} never seen)` : ''}.`,
      );
    }
  }
  const required = report.results.filter((r) => r.mode === 'floor-required');
  if (required.length) out.push('', ...formatFloorRequired(required));
  if (report.baseline) out.push('', ...formatBaseline(report.baseline.rows, report.baseline.dir));
  if (report.idempotency.length) {
    out.push(
      '',
      '## Service-level idempotency record: partners.partner.create over the bus, without and with an operation key (RabbitMQ mode)',
      '',
    );
    out.push(
      '| conns | no key req/s | p50 ms | p99 ms | key req/s | p50 ms | p99 ms | req/s ratio | p50 ratio | p99 ratio | errors |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const c of report.idempotency) {
      out.push(
        `| ${c.connections} | ${fmt(c.without.rps)} | ${fmt(c.without.p50, 1)} | ${fmt(c.without.p99, 1)} | ${fmt(c.with.rps)} | ${fmt(c.with.p50, 1)} | ${fmt(c.with.p99, 1)} | ${fmt(c.ratio.rps, 2)} | ${fmt(c.ratio.p50, 2)} | ${fmt(c.ratio.p99, 2)} | ${c.without.errors}/${c.with.errors} |`,
      );
    }
  }
  if (targets.length) {
    out.push('', '## Targets', '');
    out.push(`| target | ${s.modes.map((m) => modeTitle(m, s)).join(' | ')} |`, `|---|${s.modes.map(() => '---|').join('')}`);
    // A target nothing of this run measured (--only) is left out of the table; the JSON keeps it.
    for (const t of targets.filter((t) => Object.values(t.byMode).some((v) => v && v.value !== 'not measured'))) {
      const cells = s.modes.map((m) => targetCell(t.byMode[m]));
      out.push(`| ${t.target} | ${cells.join(' | ')} |`);
    }
    if (report.floor.length) {
      out.push(
        '',
        "floor: the floor stand-in's own figure for the target; out of reach: the floor itself misses it, so the design's minimum work does on this machine.",
      );
    }
  }
  return out.join('\n');
}

/** The floor's table: as the ceiling's, with each run's ratio to the ceiling run of the same scenario and connections. */
export function formatFloor(floor: readonly ScenarioResult[]): string[] {
  const out = [
    "## Floor: the ceiling plus the design's minimum work (raw pg, one statement per commit, outbox with confirms, consumers with inbox rows, RPCs to the owning service)",
    '',
    '| scenario | conns | req/s | × ceiling | p50 ms | p99 ms | p99 × ceiling | errors | stand-in CPU ms/req | machine CPU ms/req | stolen cores |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of floor) {
    out.push(
      `| ${r.title} | ${r.connections} | ${fmt(r.rps)} | ${fmt(r.ratio?.rps, 2)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.ratio?.p99, 2)} | ${errorsOf(r)} | ${fmt(r.cpu?.processMsPerRequest, 2)} | ${fmt(r.cpu?.machineMsPerRequest, 2)} | ${fmt(r.cpu?.stolenCores, 2)} |`,
    );
  }
  return out;
}

/**
 * The floor with the bar's requirements (`--floor-required`) against the floor: what validating each
 * body, recording the key with the reply, exact decimals and marking the outbox cost the design's
 * minimum, in req/s and in the machine's CPU per request.
 */
export function formatFloorRequired(rows: readonly ScenarioResult[]): string[] {
  const out = [
    "## Floor with the bar's requirements: the floor, plus the contract's validation, the operation key recorded with the reply, exact decimals, the outbox marked",
    '',
    '| scenario | conns | req/s | × floor | p50 ms | p99 ms | errors | stand-in CPU ms/req | machine CPU ms/req | × floor CPU |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    out.push(
      `| ${r.title} | ${r.connections} | ${fmt(r.rps)} | ${fmt(r.ratio?.floor, 2)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${errorsOf(r)} | ${fmt(r.cpu?.processMsPerRequest, 2)} | ${fmt(r.cpu?.machineMsPerRequest, 2)} | ${fmt(r.ratio?.floorCpu, 2)} |`,
    );
  }
  return out;
}

/** A target's cell: met or not, what was measured, and the floor's own figure (out of reach when the floor misses the target too). */
export function targetCell(v: TargetCell | undefined): string {
  if (!v) return 'not measured';
  const measured = v.met === undefined ? v.value : `${v.met ? 'met' : '**NOT met**'}: ${v.value}`;
  if (!v.floor) return measured;
  return `${measured}; ${v.floor.reachable ? '' : 'out of reach: '}floor ${v.floor.value}`;
}

function errorsOf(r: LoadResult): string {
  if (r.errors === 0) return '0';
  const codes = Object.entries(r.statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, n]) => `${n}×${code}`);
  if (r.timeouts) codes.push(`${r.timeouts} timeouts`);
  const other = r.connectionErrors - r.timeouts;
  if (other) codes.push(`${other} conn errors`);
  return `**${r.errors}** (${codes.join(', ')})`;
}

function fmt(value: number | undefined, digits = 0): string {
  return value === undefined || !Number.isFinite(value) ? 'n/a' : round(value, digits).toFixed(digits);
}

/** The results as JSON: every run (req/s, p50, p99, errors, connections, mode, ratios, lag), the ceiling, the floor, the idempotency cost and the targets. */
export function writeJson(file: string, report: Report, targets: readonly TargetRow[]): void {
  const run = (r: ScenarioResult) => ({
    mode: r.mode,
    scenario: r.scenario,
    title: r.title,
    ceiling: r.ceiling,
    connections: r.connections,
    rps: round(r.rps, 1),
    p50: r.p50,
    p99: r.p99,
    requests: r.ok,
    errors: r.errors,
    non2xx: r.non2xx,
    timeouts: r.timeouts,
    connectionErrors: r.connectionErrors,
    statusCodes: r.statusCodes,
    seconds: r.seconds,
    ratio: r.ratio && {
      rps: roundOpt(r.ratio.rps, 3),
      p99: roundOpt(r.ratio.p99, 3),
      ...(r.mode === 'ceiling' || r.mode === 'floor' ? {} : { floor: roundOpt(r.ratio.floor, 3), floorCpu: roundOpt(r.ratio.floorCpu, 3) }),
    },
    cpu: r.cpu && {
      processMsPerRequest: round(r.cpu.processMsPerRequest, 3),
      machineMsPerRequest: round(r.cpu.machineMsPerRequest, 3),
      machineBusyCores: round(r.cpu.machineBusyCores, 2),
      stolenCores: round(r.cpu.stolenCores, 2),
    },
    lag: r.lag && {
      samples: r.lag.samples,
      lost: r.lag.lost,
      p50: round(r.lag.p50, 1),
      p99: round(r.lag.p99, 1),
      max: round(r.lag.max, 1),
    },
  });
  const json = {
    startedAt: report.startedAt,
    finishedAt: report.finishedAt,
    elapsedSeconds: round(report.elapsedSeconds, 1),
    machine: { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null },
    settings: report.settings,
    ceiling: report.ceiling.map(run),
    floor: report.floor.map(run),
    results: report.results.map(run),
    ...(report.rounds
      ? { rounds: report.rounds.map((r) => ({ ceiling: r.ceiling.map(run), floor: r.floor.map(run), results: r.results.map(run) })) }
      : {}),
    ...(report.baseline
      ? {
          baseline: {
            dir: report.baseline.dir,
            rows: report.baseline.rows.map((r) => ({
              ...r,
              rps: roundOpt(r.rps, 3),
              rpsBySlice: r.rpsBySlice.map((v) => roundOpt(v, 3)),
              cpu: roundOpt(r.cpu, 3),
            })),
          },
        }
      : {}),
    idempotency: report.idempotency.map((c) => ({
      operation: 'partners.partner.create',
      connections: c.connections,
      seconds: c.seconds,
      without: roundBus(c.without),
      with: roundBus(c.with),
      ratio: { rps: roundOpt(c.ratio.rps, 3), p50: roundOpt(c.ratio.p50, 3), p99: roundOpt(c.ratio.p99, 3) },
    })),
    ...(report.reportsAtScale ? { reportsAtScale: report.reportsAtScale } : {}),
    targets: targets.map((t) => ({
      target: t.target,
      ...Object.fromEntries(
        Object.entries(t.byMode).map(([m, v]) => [m, { value: v?.value, met: v?.met ?? null, floor: v?.floor ?? null }]),
      ),
    })),
  };
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
}

function roundBus(b: IdempotencyCost['with']) {
  return { rps: round(b.rps, 1), p50: round(b.p50, 2), p99: round(b.p99, 2), calls: b.calls, errors: b.errors };
}

function roundOpt(v: number | undefined, digits: number): number | null {
  return v === undefined ? null : round(v, digits);
}
