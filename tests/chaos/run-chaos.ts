import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as testing from '@bo/testkit';
import { ensureBuilt, repoRoot } from './build';

interface Report {
  ok: boolean;
  error?: string;
  phases: Record<string, number>;
  checks: Array<{ name: string; ok: boolean; violations: Array<{ message: string }> }>;
}

/**
 * Runs the chaos suite (`npm run chaos -- <args>`) on the test servers, as its own process; answers
 * its exit code and every failed check or run error. Its output is printed when it failed.
 */
export async function runChaos(args: readonly string[]): Promise<{ code: number | null; failed: string[] }> {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'bo-chaos-test-'));
  const json = join(dir, 'report.json');
  const env = {
    ...process.env,
    CHAOS_DATABASE_URL: await testing.testPostgresUrl(),
    CHAOS_AMQP_URL: await testing.testAmqpUrl(),
  };
  const main = join(repoRoot, 'tools', 'chaos', 'dist', 'main.js');
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, [main, ...args, '--json', json], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', (c) => resolve({ code: c, output }));
  });
  let reports: Report[] = [];
  try {
    reports = JSON.parse(readFileSync(json, 'utf8')) as Report[];
  } catch {
    /* the run died before writing its report: the output says why */
  }
  if (code !== 0) console.log(output);
  else rmSync(dir, { recursive: true, force: true });
  const failed = reports.flatMap((r) => [
    ...(r.error ? [`run error: ${r.error.split('\n')[0]}`] : []),
    ...r.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.violations.map((v) => v.message).join('; ')}`),
  ]);
  return { code, failed };
}
