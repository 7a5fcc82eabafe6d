import type { CheckResult } from './check';
import type { WorkState } from './drain';
import type { FaultRecord } from './faults';

export interface RunReport {
  run: number;
  id: string;
  mode: 'full' | 'short';
  /** A --cluster run (RabbitMQ cluster, replicas of everything, PgBouncer). */
  cluster?: boolean;
  seed: number;
  ok: boolean;
  /** Seconds per phase. */
  phases: Record<string, number>;
  writes: {
    total: number;
    ok: number;
    refused: number;
    unknown: number;
    /** Writes whose retries ran out during the faults: op, key and what each attempt got. */
    unsettled: string[];
    latencyMs: { p50: number; p95: number; max: number };
    byOp: Record<string, { ok: number; refused: number; unknown: number; retried: number }>;
  };
  seen: Record<string, number>;
  scenarios: Record<string, number>;
  faults: FaultRecord[];
  drain: { drained: boolean; ms: number; state: WorkState };
  checks: CheckResult[];
  logDir: string;
  logsKept: boolean;
  kept: boolean;
  error?: string;
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));

/** The run as a person reads it: what ran, what was injected, then every check with its evidence. */
export function formatRun(r: RunReport): string {
  const out: string[] = [];
  out.push('', `=== chaos run ${r.run} (${r.mode}${r.cluster ? ', cluster' : ''}, seed ${r.seed}, id ${r.id}): ${r.ok ? 'PASS' : 'FAIL'}`);
  out.push(
    `phases (s): ${Object.entries(r.phases)
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(', ')}`,
  );
  if (r.error) out.push(`run error: ${r.error}`);
  const l = r.writes.latencyMs;
  out.push(
    `writes: ${r.writes.total} (${r.writes.ok} ok, ${r.writes.refused} refused, ${r.writes.unknown} without a definite answer during the faults); 2xx answered in p50 ${l.p50} ms, p95 ${l.p95} ms, max ${l.max} ms`,
  );
  for (const u of r.writes.unsettled.slice(0, 8)) out.push(`  unsettled: ${u}`);
  for (const [op, c] of Object.entries(r.writes.byOp).sort()) {
    out.push(
      `  ${pad(op, 38)} ok ${pad(String(c.ok), 5)} refused ${pad(String(c.refused), 4)} unknown ${pad(String(c.unknown), 4)} retried ${c.retried}`,
    );
  }
  out.push(
    `answers seen: ${Object.entries(r.seen)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, n]) => `${k}: ${n}`)
      .join(', ')}`,
  );
  out.push(
    `scenarios: ${Object.entries(r.scenarios)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
  out.push('faults:');
  for (const f of r.faults) {
    out.push(
      `  ${pad(`+${(f.at / 1000).toFixed(1)}s`, 8)} ${pad(f.name, 36)} ${f.recovered ? `recovered in ${(f.recoverMs / 1000).toFixed(1)}s` : `NOT RECOVERED (${f.missing.join('; ')})`}${f.error ? ` error: ${f.error}` : ''} - ${f.note}`,
    );
  }
  out.push(
    `drain: ${r.drain.drained ? `idle after ${(r.drain.ms / 1000).toFixed(1)}s` : `NOT idle after ${(r.drain.ms / 1000).toFixed(1)}s: ${JSON.stringify(r.drain.state)}`}`,
  );
  out.push('checks:');
  for (const c of r.checks) {
    out.push(`  [${c.ok ? 'PASS' : 'FAIL'}] ${pad(c.name, 13)} ${c.title}`);
    out.push(`         ${c.summary}`);
    for (const v of c.violations) {
      out.push(`         - ${v.message}`);
      if (v.evidence !== undefined) {
        for (const line of JSON.stringify(v.evidence, null, 0)
          .match(/.{1,400}/g)
          ?.slice(0, 6) ?? [])
          out.push(`             ${line}`);
      }
    }
  }
  out.push(
    r.logsKept
      ? `process logs: ${r.logDir}${r.kept ? ' (database and queues kept)' : ''}`
      : 'process logs removed (the run passed; --keep keeps them)',
  );
  return out.join('\n');
}

export function formatSummary(reports: readonly RunReport[]): string {
  const failed = reports.filter((r) => !r.ok);
  const lines = ['', `=== chaos: ${reports.length - failed.length}/${reports.length} runs passed`];
  for (const r of reports) {
    const bad = r.checks.filter((c) => !c.ok).map((c) => `${c.name} (${c.violations.length})`);
    lines.push(
      `  run ${r.run}: ${r.ok ? 'PASS' : 'FAIL'} in ${(r.phases['total'] ?? 0).toFixed(0)}s${bad.length ? ` - failed: ${bad.join(', ')}` : ''}${r.error ? ` - error: ${r.error}` : ''}`,
    );
  }
  return lines.join('\n');
}
