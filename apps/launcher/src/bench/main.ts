import { Api } from './api';
import { waitIdle } from './cpu';
import { startCeiling } from './ceiling/launch';
import type { CeilingRoute } from './ceiling/shared';
import { Fixtures, LINES } from './fixtures';
import { startFloor } from './floor/launch';
import { floorPath, floorScenario } from './floor/scenarios';
import { FLOOR_SCENARIOS, SCENARIO_RPC } from './floor/shared';
import { measureIdempotencyCost, type IdempotencyCost } from './idempotency';
import { runLoad, type LoadResult, type Sample, type Step } from './load';
import { parseOptions, UsageError, type BenchOptions } from './options';
import { attachRatios, evaluateTargets, formatReport, writeJson, type Report, type ScenarioResult } from './report';
import { combineRounds, type Round } from './rounds';
import { IDEMPOTENCY_COST, createScenarios, scenarioNames, type Scenario } from './scenarios';
import { launchSystem } from './system';

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
interface CeilingSample {
  title: string;
  steps: Array<{ name: string; sample: Sample }>;
}

const log = (message: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);

/**
 * `npm run bench`: the real system in each mode, every scenario at 32 connections and at 1, each
 * compared with the ceiling stand-in measured in the same run (after the first mode, with the
 * request and reply sizes that mode showed) and, for the scenarios that have one, with the floor
 * stand-in measured right after it; and the cost of the service-level idempotency record.
 */
export async function main(argv: readonly string[]): Promise<void> {
  let opts: BenchOptions;
  try {
    opts = parseOptions(argv, [...scenarioNames, IDEMPOTENCY_COST]);
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error((err as Error).message);
      process.exit(2);
    }
    throw err;
  }
  const selected = (name: string) => !opts.only || opts.only.has(name);
  const names: string[] = scenarioNames.filter(selected);
  const runs = [
    { connections: 32, seconds: opts.seconds },
    { connections: 1, seconds: opts.secondsAt1 },
  ];
  const started = new Date();
  log(
    `${opts.rounds > 1 ? `${opts.rounds} rounds of ` : ''}modes ${opts.modes.join(', ')}; scenarios ${[...names, ...(selected(IDEMPOTENCY_COST) ? [IDEMPOTENCY_COST] : [])].join(', ')}; ${opts.seconds} s at 32 connections, ${opts.secondsAt1} s at 1`,
  );

  const cleanups = new Set<() => Promise<void>>();
  const onSignal = () => {
    log('interrupted: stopping what the bench started');
    void Promise.allSettled([...cleanups].map((c) => c())).finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const samples = new Map<string, CeilingSample>();
  const rounds: Round[] = [];
  let idempotency: IdempotencyCost[] = [];

  for (let round = 1; round <= opts.rounds; round++) {
    const measured = await measureRound({
      opts,
      names,
      runs,
      samples,
      cleanups,
      label: (mode) => (opts.rounds > 1 ? `round ${round}/${opts.rounds}: ${mode}` : mode),
      // The idempotency cost is a comparison within itself (it alternates its halves): the first round's is enough.
      idempotencyCost: round === 1 && selected(IDEMPOTENCY_COST),
    });
    rounds.push(measured.round);
    if (measured.idempotency) idempotency = measured.idempotency;
  }

  const combined = combineRounds(rounds);
  const finished = new Date();
  const report: Report = {
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    elapsedSeconds: (finished.getTime() - started.getTime()) / 1000,
    settings: { seconds: opts.seconds, secondsAt1: opts.secondsAt1, rounds: opts.rounds, modes: opts.modes, scenarios: names },
    ...combined,
    idempotency,
    ...(opts.rounds > 1 ? { rounds } : {}),
  };
  const targets = evaluateTargets(report);
  console.log(formatReport(report, targets));
  if (opts.json) {
    writeJson(opts.json, report, targets);
    log(`results written to ${opts.json}`);
  }
  process.removeListener('SIGINT', onSignal);
  process.removeListener('SIGTERM', onSignal);
}

interface RoundContext {
  opts: BenchOptions;
  names: string[];
  runs: Array<{ connections: number; seconds: number }>;
  samples: Map<string, CeilingSample>;
  cleanups: Set<() => Promise<void>>;
  label: (mode: string) => string;
  idempotencyCost: boolean;
}

/**
 * One round: every mode in turn, each on a fresh system, with the ceiling and the floor right after
 * the first mode (the same machine moment); each run's ratios are taken within the round.
 */
async function measureRound(r: RoundContext): Promise<{ round: Round; idempotency?: IdempotencyCost[] }> {
  const { opts, names, runs, samples, cleanups, label } = r;
  const results: ScenarioResult[] = [];
  let ceiling: ScenarioResult[] = [];
  let floor: ScenarioResult[] = [];
  let idempotency: IdempotencyCost[] | undefined;
  for (const [index, mode] of opts.modes.entries()) {
    log(`${label(mode)}: starting the system`);
    const sys = await launchSystem(mode, opts);
    cleanups.add(sys.stop);
    try {
      const fixtures = new Fixtures(new Api(sys.base, sys.token));
      const scenarios = createScenarios(fixtures, sys.databaseUrl).filter((s) => names.includes(s.name));
      for (const scenario of scenarios) {
        log(`${label(mode)}: ${scenario.title}: seeding`);
        await scenario.prepare();
        for (const run of runs) {
          const result = await measure(scenario, {
            ...run,
            base: sys.base,
            token: sys.token,
            cpuRoots: [sys.pid],
            samples,
            label: label(mode),
          });
          results.push({
            ...result,
            mode,
            scenario: scenario.name,
            title: scenario.title,
            ceiling: scenario.ceiling,
            connections: run.connections,
          });
        }
      }
      if (mode === 'rabbitmq' && r.idempotencyCost) {
        log(
          `${label(mode)}: idempotency cost over the bus (no key / key, ${runs.map((x) => `${x.connections} conns ${x.seconds} s`).join(', ')})`,
        );
        idempotency = await measureIdempotencyCost({ amqpUrl: opts.amqpUrl, busPrefix: sys.busPrefix, runs });
      }
    } finally {
      log(`${label(mode)}: stopping the system`);
      await sys.stop();
      cleanups.delete(sys.stop);
    }
    // Between the modes: the stand-in imitates the sizes the first mode showed, and drift weighs on both modes alike.
    // The floor right after the ceiling: the same machine moment, the same requests and reply sizes.
    if (index === 0 && samples.size > 0) {
      ceiling = await measureCeiling(opts, samples, runs, cleanups);
      floor = await measureFloor(opts, samples, runs, cleanups, names);
    }
  }
  attachRatios(floor, ceiling);
  attachRatios(results, ceiling, floor);
  return { round: { ceiling, floor, results }, ...(idempotency ? { idempotency } : {}) };
}

interface MeasureContext {
  connections: number;
  seconds: number;
  base: string;
  token: string;
  cpuRoots: number[];
  /** Where the first successful request and reply of each ceiling's steps are kept. */
  samples?: Map<string, CeilingSample>;
  label: string;
}

/** A warm-up (which also keeps the samples the ceiling imitates), the pool seeding it calls for, then the measured run. */
async function measure(scenario: Scenario, m: MeasureContext): Promise<LoadResult> {
  const steps = scenario.steps();
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
  const setup = (await scenario.beforeRun?.({ connections: m.connections, seconds: m.seconds, warmRate: warmed.rps })) ?? {};
  const idleSince = Date.now();
  const idle = await waitIdle(m.cpuRoots);
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

/** Every scenario's ceiling on the stand-in, with the request and reply each step showed in the real system. */
async function measureCeiling(
  opts: BenchOptions,
  samples: Map<string, CeilingSample>,
  runs: Array<{ connections: number; seconds: number }>,
  cleanups: Set<() => Promise<void>>,
): Promise<ScenarioResult[]> {
  const path = (key: string, step: string) => `/ceiling/${key}/${step}`;
  const routes: CeilingRoute[] = [...samples].flatMap(([key, c]) =>
    c.steps.map((s) => ({ path: path(key, s.name), routingKey: `ceiling.${key}.${s.name}`, reply: s.sample.reply })),
  );
  log('ceiling: starting the stand-in');
  const standIn = await startCeiling(opts.amqpUrl, routes);
  const scenarios = [...samples].map(([key, c]): Scenario => {
    const steps: Step[] = c.steps.map((s) => ({ name: s.name, path: path(key, s.name), body: s.sample.request }));
    return { name: key, title: c.title, ceiling: key, prepare: () => Promise.resolve(), steps: () => steps };
  });
  return measureStandIn('ceiling', standIn, scenarios, runs, cleanups);
}

/**
 * The floor of each selected scenario that has one: the ceiling plus the minimum work the design
 * asks of it (durable commits, outbox events with confirms, consumers with their inbox rows, RPCs to
 * the services owning what is checked), on a database of its own, with the real requests and the
 * real reply sizes.
 */
async function measureFloor(
  opts: BenchOptions,
  samples: Map<string, CeilingSample>,
  runs: Array<{ connections: number; seconds: number }>,
  cleanups: Set<() => Promise<void>>,
  names: readonly string[],
): Promise<ScenarioResult[]> {
  const chosen = FLOOR_SCENARIOS.filter((s) => names.includes(s) && samples.get(s)?.steps.length === 1);
  if (chosen.length === 0) return [];
  const stepOf = (name: string) => (samples.get(name) as CeilingSample).steps[0] as CeilingSample['steps'][number];
  const routes: CeilingRoute[] = chosen.map((name) => ({
    path: floorPath(name, stepOf(name).name),
    routingKey: SCENARIO_RPC[name],
    reply: stepOf(name).sample.reply,
  }));
  log("floor: starting the stand-in (a database of its own, four services, the ceiling's HTTP side)");
  const standIn = await startFloor(
    opts,
    routes,
    LINES.map((l) => Number(l.product_id)),
  );
  const scenarios = chosen.map((name) => {
    const step = stepOf(name);
    return floorScenario(standIn, name, {
      title: (samples.get(name) as CeilingSample).title,
      step: step.name,
      request: step.sample.request,
    });
  });
  return measureStandIn('floor', standIn, scenarios, runs, cleanups);
}

/** Each scenario on a stand-in (ceiling or floor) at each run's connections, then stops the stand-in. */
async function measureStandIn(
  mode: 'ceiling' | 'floor',
  standIn: { base: string; token: string; pids: number[]; stop: () => Promise<void> },
  scenarios: readonly Scenario[],
  runs: Array<{ connections: number; seconds: number }>,
  cleanups: Set<() => Promise<void>>,
): Promise<ScenarioResult[]> {
  cleanups.add(standIn.stop);
  const out: ScenarioResult[] = [];
  try {
    for (const scenario of scenarios) {
      for (const run of runs) {
        const result = await measure(scenario, { ...run, base: standIn.base, token: standIn.token, cpuRoots: standIn.pids, label: mode });
        out.push({ ...result, mode, scenario: scenario.name, title: scenario.title, ceiling: scenario.name, connections: run.connections });
      }
    }
  } finally {
    await standIn.stop();
    cleanups.delete(standIn.stop);
  }
  return out;
}
