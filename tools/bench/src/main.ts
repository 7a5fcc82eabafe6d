import { alternationRefusal, measureAlternating } from './alternate';
import { compareWithBaseline } from './baseline';
import { Api } from './api';
import { Fixtures } from './fixtures';
import { measureIdempotencyCost, type IdempotencyCost } from './idempotency';
import { log } from './log';
import { measure, stackContext, type CeilingSample } from './measure';
import { parseOptions, UsageError, type BenchOptions } from './options';
import { attachRatios, evaluateTargets, formatReport, writeJson, type Report } from './report';
import type { ScenarioResult } from './result';
import { REPORTS_AT_SCALE, formatReportsAtScale, measureReportsAtScale, type ReportsAtScale } from './reports-at-scale';
import { combineRounds, type Round } from './rounds';
import { IDEMPOTENCY_COST, createScenarios, scenarioNames } from './scenarios';
import { startCeilingStandIn, startFloorStandIn, type StandIn } from './stand-ins';
import { launchSystem } from './system';

/**
 * `npm run bench`: the real system in each mode, every scenario at 32 connections and at 1, each
 * compared with the ceiling stand-in measured in the same run (after the first mode, with the
 * request and reply sizes that mode showed) and, for the scenarios that have one, with the floor
 * stand-in measured right after it; and the cost of the service-level idempotency record.
 */
export async function main(argv: readonly string[]): Promise<void> {
  let opts: BenchOptions;
  try {
    opts = parseOptions(argv, [...scenarioNames, IDEMPOTENCY_COST, REPORTS_AT_SCALE]);
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error((err as Error).message);
      process.exit(2);
    }
    throw err;
  }
  const selected = (name: string) => !opts.only || opts.only.has(name);
  const names: string[] = scenarioNames.filter(selected);
  const refusal = opts.alternate !== undefined ? alternationRefusal(names) : undefined;
  if (refusal) {
    console.error(`${refusal}; name others with --only`);
    process.exit(2);
  }
  const runs = [
    { connections: 32, seconds: opts.seconds },
    { connections: 1, seconds: opts.secondsAt1 },
  ];
  const started = new Date();
  log(
    `${opts.rounds > 1 ? `${opts.rounds} rounds of ` : ''}modes ${opts.modes.join(', ')}; scenarios ${[...names, ...[IDEMPOTENCY_COST, REPORTS_AT_SCALE].filter(selected)].join(', ')}; ${opts.seconds} s at 32 connections, ${opts.secondsAt1} s at 1`,
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
  let reportsAtScale: ReportsAtScale | undefined;

  if (opts.alternate !== undefined) {
    rounds.push(...(await measureAlternating({ opts, names, runs, cleanups, slices: opts.alternate })));
  } else {
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
        reportsAtScale: round === 1 && selected(REPORTS_AT_SCALE),
      });
      rounds.push(measured.round);
      if (measured.idempotency) idempotency = measured.idempotency;
      if (measured.reportsAtScale) reportsAtScale = measured.reportsAtScale;
    }
  }

  const combined = combineRounds(rounds);
  const firstMode = opts.modes[0];
  const baseline =
    opts.baseline !== undefined && firstMode ? { dir: opts.baseline, rows: compareWithBaseline(rounds, firstMode) } : undefined;
  const finished = new Date();
  const report: Report = {
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    elapsedSeconds: (finished.getTime() - started.getTime()) / 1000,
    settings: {
      seconds: opts.seconds,
      secondsAt1: opts.secondsAt1,
      rounds: opts.rounds,
      ...(opts.alternate !== undefined ? { alternating: true } : {}),
      modes: opts.modes,
      ...(opts.modes.includes('replicated') ? { replicas: opts.replicas } : {}),
      scenarios: names,
    },
    ...combined,
    idempotency,
    ...(reportsAtScale ? { reportsAtScale } : {}),
    ...(opts.rounds > 1 ? { rounds } : {}),
    ...(baseline ? { baseline } : {}),
  };
  const targets = evaluateTargets(report);
  console.log(formatReport(report, targets));
  if (reportsAtScale) console.log(formatReportsAtScale(reportsAtScale));
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
  /** The reports over a million journal lines (reports-at-scale.ts), last in the RabbitMQ mode: its load grows the database. */
  reportsAtScale: boolean;
}

/**
 * One round: every mode in turn, each on a fresh system, with the ceiling and the floor right after
 * the first mode (the same machine moment); each run's ratios are taken within the round.
 */
async function measureRound(r: RoundContext): Promise<{ round: Round; idempotency?: IdempotencyCost[]; reportsAtScale?: ReportsAtScale }> {
  const { opts, names, runs, samples, cleanups, label } = r;
  const results: ScenarioResult[] = [];
  let ceiling: ScenarioResult[] = [];
  let floor: ScenarioResult[] = [];
  let idempotency: IdempotencyCost[] | undefined;
  let reportsAtScale: ReportsAtScale | undefined;
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
            ...stackContext({ ...sys, pids: [sys.pid] }),
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
      if (mode === 'rabbitmq' && r.reportsAtScale) {
        reportsAtScale = await measureReportsAtScale(new Fixtures(new Api(sys.base, sys.token)), sys.databaseUrl);
      }
    } finally {
      log(`${label(mode)}: stopping the system`);
      await sys.stop();
      cleanups.delete(sys.stop);
    }
    // Between the modes: the stand-in imitates the sizes the first mode showed, and drift weighs on both modes alike.
    // The floor right after the ceiling: the same machine moment, the same requests and reply sizes.
    if (index === 0 && samples.size > 0) {
      ceiling = await measureStandIn(await startCeilingStandIn(opts, samples), runs, cleanups);
      floor = await measureStandIn(await startFloorStandIn(opts, samples, names), runs, cleanups);
    }
  }
  attachRatios(floor, ceiling);
  attachRatios(results, ceiling, floor);
  return { round: { ceiling, floor, results }, ...(idempotency ? { idempotency } : {}), ...(reportsAtScale ? { reportsAtScale } : {}) };
}

/** Each scenario on a stand-in (ceiling or floor) at each run's connections, then stops the stand-in. */
async function measureStandIn(
  standIn: StandIn | undefined,
  runs: Array<{ connections: number; seconds: number }>,
  cleanups: Set<() => Promise<void>>,
): Promise<ScenarioResult[]> {
  if (!standIn) return [];
  const { mode } = standIn;
  cleanups.add(standIn.stop);
  const out: ScenarioResult[] = [];
  try {
    for (const scenario of standIn.scenarios) {
      for (const run of runs) {
        const result = await measure(scenario, { ...run, ...stackContext(standIn), label: mode });
        out.push({ ...result, mode, scenario: scenario.name, title: scenario.title, ceiling: scenario.name, connections: run.connections });
      }
    }
  } finally {
    await standIn.stop();
    cleanups.delete(standIn.stop);
  }
  return out;
}
