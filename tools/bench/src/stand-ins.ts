import { startCeiling } from './ceiling/launch';
import type { CeilingRoute } from './ceiling/shared';
import { LINES } from './fixtures';
import { startFloor } from './floor/launch';
import { floorPath, floorScenario } from './floor/scenarios';
import { FLOOR_SCENARIOS, SCENARIO_PATH, SCENARIO_RPC } from './floor/shared';
import type { Step } from './load';
import { log } from './log';
import type { CeilingSample } from './measure';
import type { BenchOptions } from './options';
import type { Scenario } from './scenarios';

/** A running stand-in (ceiling or floor) and the scenarios it answers, each as its real counterpart sends it. */
export interface StandIn {
  mode: 'ceiling' | 'floor' | 'floor-required';
  base: string;
  token: string;
  pids: number[];
  /** The floor's database (the ceiling has none). */
  databaseUrl?: string;
  scenarios: Scenario[];
  readonly stop: () => Promise<void>;
}

/** The ceiling of every scenario sampled, with the request and reply each step showed in the real system. */
export async function startCeilingStandIn(opts: BenchOptions, samples: ReadonlyMap<string, CeilingSample>): Promise<StandIn> {
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
  return { mode: 'ceiling', ...standIn, stop: standIn.stop, scenarios };
}

/**
 * The floor of each selected scenario that has one (undefined if none has): the ceiling plus the
 * minimum work the design asks of it (durable commits, outbox events with confirms, consumers with
 * their inbox rows, RPCs to the services owning what is checked), on a database of its own, with
 * the real requests and the real reply sizes. `required`: the floor with what the bar requires of
 * every write besides (FloorConfig.required), a stack of its own.
 */
export async function startFloorStandIn(
  opts: BenchOptions,
  samples: ReadonlyMap<string, CeilingSample>,
  names: readonly string[],
  { required = false }: { required?: boolean } = {},
): Promise<StandIn | undefined> {
  const chosen = FLOOR_SCENARIOS.filter((s) => names.includes(s) && samples.get(s)?.steps.length === 1);
  if (chosen.length === 0) return undefined;
  const stepOf = (name: string) => (samples.get(name) as CeilingSample).steps[0] as CeilingSample['steps'][number];
  const routes: CeilingRoute[] = chosen.map((name) => ({
    path: floorPath(name, stepOf(name).name),
    routingKey: SCENARIO_RPC[name],
    reply: stepOf(name).sample.reply,
    ...(required ? { validatedAs: SCENARIO_PATH[name] } : {}),
  }));
  const mode = required ? 'floor-required' : 'floor';
  log(`${mode}: starting the stand-in (a database of its own, four services, the ceiling's HTTP side)`);
  const standIn = await startFloor(
    opts,
    routes,
    LINES.map((l) => Number(l.product_id)),
    { required },
  );
  const scenarios = chosen.map((name) => {
    const step = stepOf(name);
    return floorScenario(standIn, name, {
      title: (samples.get(name) as CeilingSample).title,
      step: step.name,
      request: step.sample.request,
    });
  });
  return {
    mode,
    base: standIn.base,
    token: standIn.token,
    pids: standIn.pids,
    databaseUrl: standIn.databaseUrl,
    stop: standIn.stop,
    scenarios,
  };
}
