import pg from 'pg';
import { waitIdle } from './cpu';
import { log } from './log';
import { runLoad, type LoadResult, type Sample, type Step } from './load';
import type { Scenario } from './scenarios';

/** How many requests warm a run up (and, for one-use pools, measure the pace to size them by), and for how long at most. */
const warmupRequests = (connections: number) => (connections === 1 ? 20 : connections * 8);
const WARMUP_MAX_SECONDS = 3;
/**
 * A scenario with no one-use pool warms up for this long instead, at 32 connections longer than at 1
 * (which runs right after, on code the 32 warmed). 256 requests left the JIT of the real system's
 * five processes compiling in the measured run (p99 44 ms in the first 10 s of a list run against
 * 36-38 ms in the next two), and so did 2 s of create partner: in consecutive 3 s slices from a cold
 * start the partners process spent 2.26, 1.78, 1.30, 1.27, 1.22 and 1.12 ms of CPU per create (the
 * optimizing compiler's threads were 45 % of it at 5-13 s), the gateway 1.38 falling to 0.73. The
 * ceiling's few functions are hot within a second; a warm system is what runs in production.
 */
const warmupSeconds = (connections: number) => (connections === 1 ? 2 : 8);

/** What the ceiling imitates of a scenario: each step's path, request and reply. */
export interface CeilingSample {
  title: string;
  steps: Array<{ name: string; sample: Sample }>;
}

export interface MeasureContext {
  connections: number;
  seconds: number;
  base: string;
  token: string;
  cpuRoots: number[];
  /** Where the first successful request and reply of each ceiling's steps are kept. */
  samples?: Map<string, CeilingSample>;
  label: string;
  /**
   * The stack's database, analyzed before each measured run (none for the ceiling). A bench's
   * database is minutes old, its tables grown from nothing by the seeding and the warm-up, and
   * autovacuum (a minute between its looks) has often not analyzed them yet: the planner then
   * guesses, and once chose to check a new invoice's number by reading every invoice of the
   * organization (1,790 buffers against 20 after an ANALYZE). A database in service is analyzed.
   */
  databaseUrl?: string;
  /** Processes that must be idle before the run (default cpuRoots): every stack up at the time. */
  idleRoots?: number[];
}

/** A system or stand-in as a run measures it: where it answers, its processes, and its database if it has one. */
export interface MeasuredStack {
  base: string;
  token: string;
  pids: number[];
  databaseUrl?: string | undefined;
}

/** The part of a run's context that names the stack it measures. */
export function stackContext(stack: MeasuredStack): Pick<MeasureContext, 'base' | 'token' | 'cpuRoots' | 'databaseUrl'> {
  return { base: stack.base, token: stack.token, cpuRoots: stack.pids, ...(stack.databaseUrl ? { databaseUrl: stack.databaseUrl } : {}) };
}

/** A warm-up (which also keeps the samples the ceiling imitates), the pool seeding it calls for, then the measured run. */
export async function measure(scenario: Scenario, m: MeasureContext): Promise<LoadResult> {
  const steps = scenario.steps();
  const warmRate = await warmUp(scenario, steps, m);
  const setup = (await scenario.beforeRun?.({ connections: m.connections, seconds: m.seconds, warmRate })) ?? {};
  if (m.databaseUrl) await analyze(m.databaseUrl);
  const idleSince = Date.now();
  const idle = await waitIdle(m.idleRoots ?? m.cpuRoots);
  const waited = Date.now() - idleSince;
  if (!idle) log(`${m.label}: ${scenario.name}: the processes did not go idle within 20 s; measuring anyway`);
  else if (waited > 1000) log(`${m.label}: ${scenario.name}: waited ${(waited / 1000).toFixed(1)} s for the processes to go idle`);
  log(
    `${m.label}: ${scenario.title}: ${m.connections} conns, ${setup.amount !== undefined ? `${setup.amount} requests (at most ${setup.capSeconds} s)` : `${m.seconds} s`}`,
  );
  try {
    const result = await runLoad({
      base: m.base,
      token: m.token,
      steps,
      connections: m.connections,
      ...(setup.amount !== undefined ? { amount: setup.amount, capSeconds: setup.capSeconds } : { seconds: m.seconds }),
      cpuRoots: m.cpuRoots,
    });
    const lag = setup.lag ? await setup.lag.finish() : undefined;
    return { ...result, ...(lag ? { lag } : {}) };
  } catch (err) {
    await setup.lag?.finish(0).catch(() => undefined);
    throw err;
  }
}

/** Warms the run's processes up (for a one-use pool, on the records it seeds) and keeps the samples; returns the rate it reached. */
export async function warmUp(scenario: Scenario, steps: Step[], m: MeasureContext): Promise<number> {
  const warm = warmupRequests(m.connections);
  await scenario.beforeWarmup?.(warm);
  const capture = new Map<string, Sample>();
  const warmed = await runLoad({
    base: m.base,
    token: m.token,
    steps,
    connections: m.connections,
    ...(scenario.beforeWarmup ? { amount: warm, capSeconds: WARMUP_MAX_SECONDS } : { seconds: warmupSeconds(m.connections) }),
    capture,
  });
  if (warmed.errors > 0) log(`${m.label}: ${scenario.name}: warm-up had ${warmed.errors} errors; first: ${warmed.firstError ?? 'n/a'}`);
  if (m.samples && !m.samples.has(scenario.ceiling) && steps.every((s) => capture.has(s.name))) {
    m.samples.set(scenario.ceiling, {
      title: scenario.title,
      steps: steps.map((s) => ({ name: s.name, sample: capture.get(s.name) as Sample })),
    });
  }
  return warmed.rps;
}

/** Brings the planner's statistics of every table of the database up to date. */
async function analyze(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('analyze');
  } finally {
    await client.end();
  }
}
