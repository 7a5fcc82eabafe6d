import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { IdempotencyCost } from './idempotency';
import type { LagResult } from './lag';
import type { LoadResult } from './load';
import type { Mode } from './options';
import { ratio, round } from './stats';

/** One measured run: a scenario at a number of connections, in a mode or on the ceiling stand-in. */
export interface ScenarioResult extends LoadResult {
  mode: Mode | 'ceiling';
  scenario: string;
  title: string;
  /** The ceiling stand-in this scenario is compared with. */
  ceiling: string;
  connections: number;
  /** This run ÷ the ceiling's run of the same connections (absent on the ceiling's own rows). */
  ratio?: { rps?: number; p99?: number };
  /** Validation → partner balance, for the validate scenario. */
  lag?: LagResult;
}

export interface Report {
  startedAt: string;
  finishedAt: string;
  elapsedSeconds: number;
  settings: { seconds: number; secondsAt1: number; modes: Mode[]; scenarios: string[] };
  ceiling: ScenarioResult[];
  results: ScenarioResult[];
  idempotency: IdempotencyCost[];
}

/** Sets each result's ratios to its ceiling run of the same connections. */
export function attachRatios(results: ScenarioResult[], ceiling: readonly ScenarioResult[]): void {
  for (const r of results) {
    const c = ceiling.find((x) => x.ceiling === r.ceiling && x.connections === r.connections);
    if (c) r.ratio = { rps: ratio(r.rps, c.rps), p99: ratio(r.p99, c.p99) };
  }
}

export interface TargetRow {
  target: string;
  /** Per mode: what was measured and whether it meets the target (undefined: not measured). */
  byMode: Partial<Record<Mode, { value: string; met?: boolean }>>;
}

const MODE_TITLES: Record<Mode, string> = { rabbitmq: 'RabbitMQ', 'in-process': 'in-process' };

/** The targets of issue 9, each evaluated per mode from this run's results. */
export function evaluateTargets(report: Pick<Report, 'results' | 'settings'>): TargetRow[] {
  const modes = report.settings.modes;
  const find = (mode: Mode, scenario: string, connections: number) =>
    report.results.find((r) => r.mode === mode && r.scenario === scenario && r.connections === connections);
  const row = (target: string, evaluate: (mode: Mode) => { value: string; met?: boolean } | undefined): TargetRow => ({
    target,
    byMode: Object.fromEntries(modes.map((m) => [m, evaluate(m) ?? { value: 'not measured' }])),
  });
  const atLeast = (scenario: string, connections: number, min: number) => (mode: Mode) => {
    const r = find(mode, scenario, connections);
    if (!r || r.ratio?.rps === undefined) return undefined;
    return { value: `${fmt(r.ratio.rps, 2)} × (${fmt(r.rps)} req/s)`, met: r.ratio.rps >= min };
  };
  const latency = (scenario: string, connections: number, key: 'p50' | 'p99', max: number) => (mode: Mode) => {
    const r = find(mode, scenario, connections);
    return r && { value: `${fmt(r[key], 1)} ms`, met: r[key] <= max };
  };

  const rows: TargetRow[] = [
    row('list partners ≥ 0.8 × the ceiling (req/s, 32 conns)', atLeast('list-partners', 32, 0.8)),
    row('list partners p99 ≤ 1.5 × the ceiling p99 (32 conns)', (mode) => {
      const r = find(mode, 'list-partners', 32);
      if (!r || r.ratio?.p99 === undefined) return undefined;
      return { value: `${fmt(r.ratio.p99, 2)} × (${fmt(r.p99, 1)} ms)`, met: r.ratio.p99 <= 1.5 };
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
      const total = failing.reduce((s, r) => s + r.errors, 0);
      return {
        value: failing.length
          ? `${total} errors in ${failing.map((r) => `${r.scenario}@${r.connections}`).join(', ')}`
          : `0 errors in ${runs.length} runs`,
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

/** The console report: the ceiling, a table per mode with ratios, the idempotency cost and the targets. */
export function formatReport(report: Report, targets: readonly TargetRow[]): string {
  const s = report.settings;
  const out: string[] = [
    `# Benchmark ${report.startedAt}`,
    '',
    `${s.seconds} s per 32-connection run, ${s.secondsAt1} s per 1-connection run; node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}); ` +
      `the whole bench took ${Math.floor(report.elapsedSeconds / 60)} min ${Math.round(report.elapsedSeconds % 60)} s.`,
    'req/s counts 2xx replies; latencies are per HTTP request; "× ceiling" divides by the stand-in run of the same scenario and connections;',
    "CPU ms/req: the system's own processes (or the stand-in's), and the whole machine (everything, load generator included).",
  ];
  if (report.ceiling.length) {
    out.push(
      '',
      '## Ceiling: Express 5 stand-in → amqplib direct reply-to → worker with manual acks, same request and reply sizes, no handler, no database',
      '',
    );
    out.push(
      '| scenario | conns | req/s | p50 ms | p99 ms | errors | stand-in CPU ms/req | machine CPU ms/req |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const r of report.ceiling) {
      out.push(
        `| ${r.title} | ${r.connections} | ${fmt(r.rps)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${errorsOf(r)} | ${fmt(r.cpu?.processMsPerRequest, 2)} | ${fmt(r.cpu?.machineMsPerRequest, 2)} |`,
      );
    }
  }
  for (const mode of s.modes) {
    const rows = report.results.filter((r) => r.mode === mode);
    if (!rows.length) continue;
    out.push('', `## ${MODE_TITLES[mode]} mode`, '');
    out.push(
      '| scenario | conns | req/s | × ceiling | p50 ms | p99 ms | p99 × ceiling | errors | system CPU ms/req | machine CPU ms/req |',
      '|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const r of rows) {
      out.push(
        `| ${r.title} | ${r.connections} | ${fmt(r.rps)} | ${fmt(r.ratio?.rps, 2)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.ratio?.p99, 2)} | ${errorsOf(r)} | ${fmt(r.cpu?.processMsPerRequest, 2)} | ${fmt(r.cpu?.machineMsPerRequest, 2)} |`,
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
    out.push('', '## Targets (issue 9)', '');
    out.push(`| target | ${s.modes.map((m) => MODE_TITLES[m]).join(' | ')} |`, `|---|${s.modes.map(() => '---|').join('')}`);
    // A target nothing of this run measured (--only) is left out of the table; the JSON keeps it.
    for (const t of targets.filter((t) => Object.values(t.byMode).some((v) => v && v.value !== 'not measured'))) {
      const cells = s.modes.map((m) => {
        const v = t.byMode[m];
        if (!v) return 'not measured';
        return v.met === undefined ? v.value : `${v.met ? 'met' : '**NOT met**'}: ${v.value}`;
      });
      out.push(`| ${t.target} | ${cells.join(' | ')} |`);
    }
  }
  return out.join('\n');
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

/** The results as JSON: every run (req/s, p50, p99, errors, connections, mode, ratios, lag), the ceiling, the idempotency cost and the targets. */
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
      rps: r.ratio.rps === undefined ? null : round(r.ratio.rps, 3),
      p99: r.ratio.p99 === undefined ? null : round(r.ratio.p99, 3),
    },
    cpu: r.cpu && {
      processMsPerRequest: round(r.cpu.processMsPerRequest, 3),
      machineMsPerRequest: round(r.cpu.machineMsPerRequest, 3),
      machineBusyCores: round(r.cpu.machineBusyCores, 2),
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
    results: report.results.map(run),
    idempotency: report.idempotency.map((c) => ({
      operation: 'partners.partner.create',
      connections: c.connections,
      seconds: c.seconds,
      without: roundBus(c.without),
      with: roundBus(c.with),
      ratio: { rps: roundOpt(c.ratio.rps, 3), p50: roundOpt(c.ratio.p50, 3), p99: roundOpt(c.ratio.p99, 3) },
    })),
    targets: targets.map((t) => ({
      target: t.target,
      ...Object.fromEntries(Object.entries(t.byMode).map(([m, v]) => [m, { value: v?.value, met: v?.met ?? null }])),
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
