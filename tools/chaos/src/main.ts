import { writeFileSync } from 'node:fs';
import { parseOptions, UsageError } from './options';
import { formatRun, formatSummary, type RunReport } from './report';
import { runOnce } from './run';

/**
 * `npm run chaos [-- --short] [--cluster] [--runs N] [--seconds S]`: the fault-injection suite. Runs the
 * system as separate processes over RabbitMQ and PostgreSQL, injects faults under load, checks
 * the invariants, prints a report; exits 1 if any run found a violation.
 */
async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const log = (line: string) => process.stderr.write(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
  log(
    `${options.mode} mode${options.cluster ? ' on a cluster' : ''}, ${options.runs} run(s), >= ${options.seconds}s of load each, seed ${options.seed}`,
  );
  const reports: RunReport[] = [];
  for (let run = 1; run <= options.runs; run++) {
    const report = await runOnce(options, run, log);
    reports.push(report);
    console.log(formatRun(report));
  }
  console.log(formatSummary(reports));
  if (options.jsonReport) writeFileSync(options.jsonReport, JSON.stringify(reports, null, 2));
  process.exit(reports.every((r) => r.ok) ? 0 : 1);
}

main().catch((err) => {
  console.error(err instanceof UsageError ? err.message : err);
  process.exit(2);
});
