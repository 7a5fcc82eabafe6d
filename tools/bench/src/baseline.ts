import type { Mode } from './options';
import type { ScenarioResult } from './result';
import type { Round } from './rounds';
import { median, ratio, round } from './stats';

/**
 * One scenario at one number of connections, this checkout's system against the `--baseline`
 * checkout's: each slice's ratio (this ÷ baseline, both measured seconds apart in that slice), and
 * their median. A ratio within one slice cancels the machine's drift between slices, which on this
 * 2-core VM moves one system's req/s by 15-20 % from one minute to the next; the median then
 * discards the slices a neighbour's burst fell on.
 */
export interface BaselineComparison {
  scenario: string;
  title: string;
  connections: number;
  /** Median over the slices of req/s ÷ the baseline's req/s: below 1 is slower. */
  rps: number | undefined;
  /** Each slice's req/s ratio, in slice order. */
  rpsBySlice: Array<number | undefined>;
  /** Median over the slices of the system's CPU ms per request ÷ the baseline's: above 1 costs more. */
  cpu: number | undefined;
  /** Errors of both systems over every slice (a comparison with errors compares nothing). */
  errors: number;
}

/** The comparison of `mode`'s system with the baseline's, per scenario and connections measured in every slice. */
export function compareWithBaseline(rounds: readonly Round[], mode: Mode): BaselineComparison[] {
  const out = new Map<string, BaselineComparison & { cpus: Array<number | undefined> }>();
  for (const slice of rounds) {
    for (const r of slice.results) {
      if (r.mode !== mode) continue;
      const base = slice.results.find((b) => b.mode === 'baseline' && b.scenario === r.scenario && b.connections === r.connections);
      if (!base) continue;
      const key = `${r.scenario}|${r.connections}`;
      const row = out.get(key) ?? {
        scenario: r.scenario,
        title: r.title,
        connections: r.connections,
        rps: undefined,
        rpsBySlice: [],
        cpu: undefined,
        cpus: [],
        errors: 0,
      };
      row.rpsBySlice.push(ratio(r.rps, base.rps));
      row.cpus.push(ratio(cpuPerRequest(r), cpuPerRequest(base)));
      row.errors += r.errors + base.errors;
      out.set(key, row);
    }
  }
  return [...out.values()].map(({ cpus, ...row }) => ({ ...row, rps: median(row.rpsBySlice), cpu: median(cpus) }));
}

function cpuPerRequest(r: ScenarioResult): number | undefined {
  return r.cpu?.processMsPerRequest;
}

/** The console table: one row per scenario and connections, with the slices behind each median. */
export function formatBaseline(rows: readonly BaselineComparison[], baseline: string): string[] {
  if (!rows.length) return [];
  const cell = (v: number | undefined, digits = 3) => (v === undefined ? 'n/a' : round(v, digits).toFixed(digits));
  return [
    `## This checkout ÷ the baseline (${baseline}), median over the slices of each slice's ratio`,
    '',
    'req/s below 1 is slower than the baseline; CPU ms/req above 1 costs more per request.',
    '',
    '| scenario | conns | req/s ÷ baseline | per slice | CPU ms/req ÷ baseline | errors |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.title} | ${r.connections} | ${cell(r.rps)} | ${r.rpsBySlice.map((v) => cell(v, 2)).join(', ')} | ${cell(r.cpu)} | ${r.errors} |`,
    ),
  ];
}
