import { Api } from './api';
import { Fixtures } from './fixtures';
import { log } from './log';
import { measure, stackContext, warmUp, type CeilingSample, type MeasuredStack } from './measure';
import type { BenchOptions } from './options';
import { attachRatios } from './report';
import type { ScenarioResult, StackName } from './result';
import type { Round } from './rounds';
import { createScenarios, type Scenario } from './scenarios';
import { startCeilingStandIn, startFloorStandIn } from './stand-ins';
import { launchSystem } from './system';

/** A system or stand-in that is up for the whole sitting, with the scenarios it answers. */
interface Stack extends MeasuredStack {
  mode: StackName;
  scenarios: readonly Scenario[];
}

export interface AlternateContext {
  opts: BenchOptions;
  names: readonly string[];
  runs: ReadonlyArray<{ connections: number; seconds: number }>;
  cleanups: Set<() => Promise<void>>;
  slices: number;
}

/**
 * `--alternate N`: the rounds as N slices of one sitting. The system of each mode, the ceiling and
 * the floor are all up at once; each slice then runs, scenario by scenario and connections by
 * connections, every stack in turn, seconds apart, the order rotating from slice to slice so that
 * none always follows another. Each slice is a round, so its ratios compare runs of one machine
 * moment (a round's ratios compare runs minutes apart, across which this VM's speed moves: the same
 * system's list read 1,524 to 1,866 req/s in four consecutive 8 s runs).
 *
 * Every run is warmed up first, as in a round, though its stack ran the scenario a slice ago, so
 * that a slice's run is a round's. A first version without warm-ups measured the system half cold:
 * idle for the minute the other stacks took, its processes came back slowly (list partners over
 * RabbitMQ, per second after such a pause: 0.82, 0.51, 0.49 ... 0.41 ms of the gateway's and
 * partners' CPU per list, the floor's 0.82, 0.44, 0.33, 0.30). The cause was V8's memory reducer,
 * now off in every serving process (node-flags.ts; measured with `npm run bench`).
 */
export async function measureAlternating(a: AlternateContext): Promise<Round[]> {
  const stacks: Stack[] = [];
  const stops: Array<() => Promise<void>> = [];
  const keep = (stop: () => Promise<void>) => {
    stops.push(stop);
    a.cleanups.add(stop);
  };
  try {
    const samples = new Map<string, CeilingSample>();
    // With --baseline the other checkout's system runs in the first mode beside this one's, and
    // the sitting compares the two (baseline.ts): the stand-ins, which would double it, stay down.
    const systems: Array<{ mode: StackName; launch: Parameters<typeof launchSystem> }> = a.opts.modes.map((mode) => ({
      mode,
      launch: a.opts.subject !== undefined ? [mode, a.opts, a.opts.subject] : [mode, a.opts],
    }));
    const first = a.opts.modes[0];
    if (a.opts.baseline !== undefined && first) systems.push({ mode: 'baseline', launch: [first, a.opts, a.opts.baseline] });
    for (const { mode, launch } of systems) {
      log(`alternating: ${mode}: starting the system`);
      const sys = await launchSystem(...launch);
      keep(sys.stop);
      const scenarios = createScenarios(new Fixtures(new Api(sys.base, sys.token)), sys.databaseUrl).filter((s) =>
        a.names.includes(s.name),
      );
      for (const scenario of scenarios) {
        log(`alternating: ${mode}: ${scenario.title}: seeding`);
        await scenario.prepare();
        // The first mode's warm-up keeps the request and reply the stand-ins imitate.
        const steps = scenario.steps();
        await warmUp(scenario, steps, {
          connections: 32,
          seconds: 0,
          base: sys.base,
          token: sys.token,
          cpuRoots: [],
          samples,
          label: mode,
        });
      }
      stacks.push({ mode, base: sys.base, token: sys.token, pids: [sys.pid], databaseUrl: sys.databaseUrl, scenarios });
    }
    const standIns =
      a.opts.baseline !== undefined
        ? []
        : [
            await startCeilingStandIn(a.opts, samples),
            await startFloorStandIn(a.opts, samples, a.names),
            a.opts.floorRequired ? await startFloorStandIn(a.opts, samples, a.names, { required: true }) : undefined,
          ];
    for (const standIn of standIns) {
      if (!standIn) continue;
      keep(standIn.stop);
      stacks.push(standIn);
    }
    const everyPid = stacks.flatMap((s) => s.pids);
    const rounds: Round[] = [];
    for (let slice = 0; slice < a.slices; slice++) {
      const label = `slice ${slice + 1}/${a.slices}`;
      const measured: ScenarioResult[] = [];
      for (const name of a.names) {
        for (const run of a.runs) {
          for (const stack of rotate(stacks, slice)) {
            const scenario = scenarioOf(stacks, stack, name);
            // Scenarios sending the same request and reply share one ceiling: it runs once a slice.
            if (
              !scenario ||
              measured.some((r) => r.mode === stack.mode && r.scenario === scenario.name && r.connections === run.connections)
            )
              continue;
            const result = await measure(scenario, {
              ...run,
              ...stackContext(stack),
              idleRoots: everyPid,
              label: `${label}: ${stack.mode}`,
            });
            measured.push({
              ...result,
              mode: stack.mode,
              scenario: scenario.name,
              title: scenario.title,
              ceiling: scenario.ceiling,
              connections: run.connections,
            });
          }
        }
      }
      rounds.push(asRound(measured));
    }
    return rounds;
  } finally {
    for (const stop of stops.reverse()) {
      await stop().catch((err: unknown) => log(`alternating: stopping a stack failed: ${(err as Error).message}`));
      a.cleanups.delete(stop);
    }
  }
}

/**
 * Why `--alternate` cannot run the selected scenarios together, or undefined if it can: scenarios
 * run in turn on one system must not grow what another reads (each slice's list would read more
 * partners than the last). Asked before anything starts (building the scenarios does no I/O).
 */
export function alternationRefusal(names: readonly string[]): string | undefined {
  const selected = createScenarios(new Fixtures(new Api('http://127.0.0.1:0', '')), '').filter((s) => names.includes(s.name));
  for (const s of selected) {
    const grown = (s.grows ?? []).filter((name) => names.includes(name));
    if (grown.length)
      return `--alternate cannot run ${s.name} with ${grown.join(', ')}: its writes grow what that reads; alternate them in two sittings`;
  }
  return undefined;
}

/** The stacks in the slice's order: each slice starts one stack further on. */
export function rotate<T>(items: readonly T[], by: number): T[] {
  if (items.length === 0) return [];
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/** What a stack runs for a scenario: its own of that name, or on the ceiling the one it is compared with. */
function scenarioOf(stacks: readonly Stack[], stack: Stack, name: string): Scenario | undefined {
  if (stack.mode !== 'ceiling') return stack.scenarios.find((s) => s.name === name);
  // The first stack is a system, whose scenario names its ceiling.
  const key = stacks[0]?.scenarios.find((s) => s.name === name)?.ceiling;
  return stack.scenarios.find((s) => s.name === key);
}

/** A slice's runs as a round: the systems' results with their ratios to the ceiling and floor of the same slice. */
export function asRound(measured: readonly ScenarioResult[]): Round {
  const ceiling = measured.filter((r) => r.mode === 'ceiling');
  const floor = measured.filter((r) => r.mode === 'floor');
  const results = measured.filter((r) => r.mode !== 'ceiling' && r.mode !== 'floor');
  attachRatios(floor, ceiling);
  attachRatios(results, ceiling, floor);
  return { ceiling, floor, results };
}
