import type { ScenarioResult } from './result';
import { median } from './stats';

/**
 * What one round of a `--rounds N` bench measured: every mode, and the ceiling and floor right after
 * the first mode, each run's ratios taken against the ceiling and floor of the same round (ratios
 * never cross rounds: a round is one machine moment).
 */
export interface Round {
  ceiling: ScenarioResult[];
  floor: ScenarioResult[];
  results: ScenarioResult[];
}

/**
 * The rounds folded into one result per mode, scenario and connections: the median of each figure
 * (req/s, p50, p99, each ratio, CPU, the lag's percentiles) over the rounds that measured it, and the
 * sum of the counts (requests, errors, lag samples), so "zero errors" still means zero in every
 * round. One noisy round then moves a verdict no more than the middle round does: on this 2-core
 * machine the same code's list p99 ratio spans 1.2-1.9 × from one round to the next.
 */
export function combineRounds(rounds: readonly Round[]): Round {
  return {
    ceiling: combine(rounds.map((r) => r.ceiling)),
    floor: combine(rounds.map((r) => r.floor)),
    results: combine(rounds.map((r) => r.results)),
  };
}

function combine(rounds: ReadonlyArray<readonly ScenarioResult[]>): ScenarioResult[] {
  const groups = new Map<string, ScenarioResult[]>();
  for (const runs of rounds) {
    for (const run of runs) {
      const key = `${run.mode}|${run.scenario}|${run.connections}`;
      groups.set(key, [...(groups.get(key) ?? []), run]);
    }
  }
  return [...groups.values()].map(fold);
}

function fold(runs: ScenarioResult[]): ScenarioResult {
  const first = runs[0] as ScenarioResult;
  if (runs.length === 1) return first;
  const mid = (pick: (r: ScenarioResult) => number | undefined) => median(runs.map(pick));
  const total = (pick: (r: ScenarioResult) => number) => runs.reduce((s, r) => s + pick(r), 0);
  const statusCodes: Record<string, number> = {};
  for (const r of runs) for (const [code, n] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  const lags = runs.flatMap((r) => (r.lag ? [r.lag] : []));
  const cpus = runs.flatMap((r) => (r.cpu ? [r.cpu] : []));
  const ratio = {
    rps: mid((r) => r.ratio?.rps),
    p99: mid((r) => r.ratio?.p99),
    floor: mid((r) => r.ratio?.floor),
    floorCpu: mid((r) => r.ratio?.floorCpu),
  };
  const definedRatio = Object.fromEntries(Object.entries(ratio).filter(([, v]) => v !== undefined));
  return {
    mode: first.mode,
    scenario: first.scenario,
    title: first.title,
    ceiling: first.ceiling,
    connections: first.connections,
    rps: mid((r) => r.rps) as number,
    p50: mid((r) => r.p50) as number,
    p99: mid((r) => r.p99) as number,
    ok: total((r) => r.ok),
    non2xx: total((r) => r.non2xx),
    timeouts: total((r) => r.timeouts),
    connectionErrors: total((r) => r.connectionErrors),
    errors: total((r) => r.errors),
    statusCodes,
    seconds: total((r) => r.seconds),
    ...(Object.keys(definedRatio).length ? { ratio: definedRatio } : {}),
    ...(cpus.length
      ? {
          cpu: {
            processMsPerRequest: median(cpus.map((c) => c.processMsPerRequest)) as number,
            machineMsPerRequest: median(cpus.map((c) => c.machineMsPerRequest)) as number,
            machineBusyCores: median(cpus.map((c) => c.machineBusyCores)) as number,
            stolenCores: median(cpus.map((c) => c.stolenCores)) as number,
          },
        }
      : {}),
    ...(lags.length
      ? {
          lag: {
            samples: lags.reduce((s, l) => s + l.samples, 0),
            lost: lags.reduce((s, l) => s + l.lost, 0),
            p50: median(lags.map((l) => l.p50)) as number,
            p99: median(lags.map((l) => l.p99)) as number,
            max: Math.max(...lags.map((l) => l.max)),
          },
        }
      : {}),
  };
}

/**
 * The spread behind the medians, one line per mode (and the floor) and scenario at 32 connections:
 * each round's req/s and p99 as ratios to that round's ceiling, in round order.
 */
export function formatSpread(rounds: readonly Round[], noun = 'rounds'): string[] {
  if (rounds.length < 2) return [];
  const keys = new Map<string, { mode: string; title: string; scenario: string }>();
  for (const round of rounds) {
    for (const r of [...round.floor, ...round.results]) {
      if (r.connections === 32) keys.set(`${r.mode}|${r.scenario}`, { mode: r.mode, title: r.title, scenario: r.scenario });
    }
  }
  const cell = (v: number | undefined) => (v === undefined ? 'n/a' : v.toFixed(2));
  const out = [
    `## Spread over the ${rounds.length} ${noun} (32 conns; the ratios to the ceiling of the same ${noun.replace(/s$/, '')}, in order)`,
    '',
    '| run | scenario | req/s × ceiling | p99 × ceiling |',
    '|---|---|---|---|',
  ];
  for (const { mode, title, scenario } of keys.values()) {
    const runs = rounds.map((round) =>
      [...round.floor, ...round.results].find((r) => r.mode === mode && r.scenario === scenario && r.connections === 32),
    );
    out.push(
      `| ${mode} | ${title} | ${runs.map((r) => cell(r?.ratio?.rps)).join(', ')} | ${runs.map((r) => cell(r?.ratio?.p99)).join(', ')} |`,
    );
  }
  return out;
}
