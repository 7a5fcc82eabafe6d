import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** The launcher's start, as `npm start` runs it: what a `--baseline` checkout must have built. */
export const LAUNCHER_ENTRY = join('apps', 'launcher', 'dist', 'start.js');
const DEFAULT_BASELINE_SLICES = 6;

/**
 * `replicated`: the RabbitMQ mode with REPLICAS instances of every service and of the gateway, the
 * gateways behind a round-robin balancer (`--replicas N`, measured beside the one-replica mode).
 */
export const modes = ['rabbitmq', 'in-process', 'replicated'] as const;
export type Mode = (typeof modes)[number];

/** What `npm run bench` was asked to do. */
export interface BenchOptions {
  /** Length of each 32-connection run; 1-connection runs last half of it. */
  seconds: number;
  secondsAt1: number;
  /** How many times the whole sequence runs; the report judges the medians (rounds.ts). */
  rounds: number;
  /** `--alternate N`: instead of rounds, N slices of one sitting with every stack up at once (alternate.ts). */
  alternate?: number;
  modes: Mode[];
  /** Scenario names to run (every one when undefined). */
  only?: ReadonlySet<string>;
  /** Also write the results as JSON here. */
  json?: string;
  /**
   * `--baseline DIR`: a built checkout of another commit (a git worktree, say), whose system runs
   * beside this one's in alternating slices; the report gives this ÷ that per scenario (baseline.ts).
   */
  baseline?: string;
  /**
   * `--subject DIR`: with `--baseline`, the built checkout measured in place of this one, so two
   * earlier commits compare under today's bench (which they may predate).
   */
  subject?: string;
  /**
   * `--floor-required`: with `--alternate`, a second floor runs beside the first, doing also what the
   * bar requires of every write and the floor leaves out (floor/worker.ts, `required`), so the report
   * says what those requirements cost against the floor in one sitting.
   */
  floorRequired?: boolean;
  /** Instances of every service and of the gateway in the `replicated` mode. */
  replicas: number;
  /** Admin URL of PostgreSQL: the bench makes (and drops) a database per mode on it. */
  pgUrl: string;
  amqpUrl: string;
}

export const USAGE = `usage: npm run bench -- [--only <scenario,...>] [--modes rabbitmq|in-process|replicated,...] [--replicas N] [--rounds N | --alternate N] [--baseline DIR [--subject DIR]] [--floor-required] [--json FILE]
  --replicas N   also measure N instances of every service and of the gateway (mode replicated) beside one (mode rabbitmq)
  --baseline DIR: DIR is a built checkout of another commit; both systems run side by side in alternating slices (6 unless --alternate says)
  --subject DIR:  with --baseline, measure DIR's built checkout in place of this one (two earlier commits under today's bench)
  --floor-required: with --alternate, also a floor doing what the bar requires of a write (validation, the key's record, exact decimals, outbox marked)
environment: BENCH_SECONDS (default 10: each 32-connection run; 1-connection runs last half),
  BENCH_DATABASE_URL / BENCH_AMQP_URL (else TEST_DATABASE_URL / TEST_AMQP_URL, else local defaults)`;

/** `names` are the scenarios that exist, for checking --only. */
export function parseOptions(argv: readonly string[], names: readonly string[], env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      only: { type: 'string' },
      modes: { type: 'string' },
      json: { type: 'string' },
      rounds: { type: 'string' },
      alternate: { type: 'string' },
      baseline: { type: 'string' },
      subject: { type: 'string' },
      replicas: { type: 'string' },
      'floor-required': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) throw new UsageError(`${USAGE}\nscenarios: ${names.join(', ')}`);

  const seconds = Number(env['BENCH_SECONDS'] ?? 10);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(`BENCH_SECONDS must be a positive number of seconds, not "${env['BENCH_SECONDS']}"`);

  const rounds = values.rounds === undefined ? 1 : Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 9)
    throw new UsageError(`--rounds must be a whole number from 1 to 9, not "${values.rounds}"`);

  const alternate = values.alternate === undefined ? undefined : Number(values.alternate);
  if (alternate !== undefined && (!Number.isInteger(alternate) || alternate < 2 || alternate > 20))
    throw new UsageError(`--alternate must be a whole number of slices from 2 to 20, not "${values.alternate}"`);
  if (alternate !== undefined && values.rounds !== undefined)
    throw new UsageError('--alternate and --rounds are two ways of repeating: give one');

  let baseline: string | undefined;
  if (values.baseline !== undefined) {
    if (values.rounds !== undefined) throw new UsageError('--baseline runs in alternating slices: give --alternate N, not --rounds');
    baseline = resolve(values.baseline);
    if (!existsSync(join(baseline, LAUNCHER_ENTRY)))
      throw new UsageError(
        `--baseline ${values.baseline}: no ${LAUNCHER_ENTRY} there; build that checkout first (npm install && npx turbo run build)`,
      );
  }
  let subject: string | undefined;
  if (values.subject !== undefined) {
    if (baseline === undefined) throw new UsageError('--subject is measured against a --baseline: give both');
    subject = resolve(values.subject);
    if (!existsSync(join(subject, LAUNCHER_ENTRY)))
      throw new UsageError(
        `--subject ${values.subject}: no ${LAUNCHER_ENTRY} there; build that checkout first (npm install && npx turbo run build)`,
      );
  }
  const floorRequired = values['floor-required'] === true;
  if (floorRequired && (alternate === undefined || baseline !== undefined))
    throw new UsageError('--floor-required runs beside the floor in alternating slices: give --alternate N (and no --baseline)');
  const slices = alternate ?? (baseline !== undefined ? DEFAULT_BASELINE_SLICES : undefined);

  const replicas = values.replicas === undefined ? 1 : Number(values.replicas);
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 8)
    throw new UsageError(`--replicas must be a whole number from 1 to 8, not "${values.replicas}"`);
  // --replicas N alone: one replica and N, side by side in one sitting.
  const defaultModes: Mode[] = replicas > 1 ? ['rabbitmq', 'replicated'] : ['rabbitmq', 'in-process'];
  const chosenModes = values.modes === undefined ? defaultModes : list(values.modes);
  for (const m of chosenModes) {
    if (!(modes as readonly string[]).includes(m)) throw new UsageError(`unknown mode "${m}"; modes: ${modes.join(', ')}`);
  }
  if (chosenModes.length === 0) throw new UsageError('--modes names no mode');

  let only: Set<string> | undefined;
  if (values.only !== undefined) {
    only = new Set(list(values.only));
    const unknown = [...only].filter((n) => !names.includes(n));
    if (unknown.length) throw new UsageError(`unknown scenario ${unknown.map((n) => `"${n}"`).join(', ')}; scenarios: ${names.join(', ')}`);
    if (only.size === 0) throw new UsageError('--only names no scenario');
  }

  return {
    seconds,
    secondsAt1: seconds / 2,
    rounds: slices ?? rounds,
    ...(slices !== undefined ? { alternate: slices } : {}),
    ...(baseline !== undefined ? { baseline } : {}),
    ...(subject !== undefined ? { subject } : {}),
    ...(floorRequired ? { floorRequired } : {}),
    modes: [...new Set(chosenModes)] as Mode[],
    only,
    json: values.json,
    replicas: chosenModes.includes('replicated') ? Math.max(replicas, 2) : replicas,
    pgUrl: env['BENCH_DATABASE_URL'] ?? env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    amqpUrl: env['BENCH_AMQP_URL'] ?? env['TEST_AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672',
  };
}

/** A bad command line: printed without a stack trace. */
export class UsageError extends Error {}

function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
