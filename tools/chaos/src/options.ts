import { parseArgs } from 'node:util';

/** How a chaos run is shaped: its mode, its bounds, and the settings the processes get. */
export interface ChaosOptions {
  /** `full`: real broker and database restarts too. `short`: only faults the harness makes itself (proxy, kill -9). */
  mode: 'full' | 'short';
  /**
   * The topology past one machine: a 3-node RabbitMQ cluster of the run's own with quorum queues,
   * two replicas of every service and of the gateway, PostgreSQL behind a PgBouncer of the run's own
   * in transaction mode; its faults kill one replica of each, one RabbitMQ node and PgBouncer.
   */
  cluster: boolean;
  /** AMQP port of the cluster's first node (the next two follow). */
  clusterPort: number;
  runs: number;
  /** Load lasts at least this long, and until the last fault has recovered. */
  seconds: number;
  /** Upper bound on logical writes per run (a write and its retries count once). */
  maxWrites: number;
  /** Workers sending load at once. */
  concurrency: number;
  /**
   * Each run stops where it is once this many seconds have passed since it began, tears down what it
   * started and fails, naming the phase it was in: a slow or stuck run is a failed run with its
   * report, not a process someone else has to kill. None by default.
   */
  deadlineSeconds?: number;
  /** Keep the database, the queues and the process logs of the run for inspection (a failed run keeps its logs anyway). */
  keep: boolean;
  /** Also write the report as JSON here. */
  jsonReport?: string;
  seed: number;
  /** Admin URLs of the real servers; the processes reach them through proxies. */
  databaseUrl: string;
  amqpUrl: string;
  /** Settings handed to the processes. */
  rpcTimeoutMs: number;
  recurringIntervalMs: number;
  eventRetryBaseMs: number;
  outboxPollMs: number;
  /** How long to wait for everything to be healthy again after a fault, and for queues to drain. */
  recoverTimeoutMs: number;
  drainTimeoutMs: number;
  /** How long a key may answer 409 "still in progress" after recovery before it counts as stuck. */
  stuckKeyMs: number;
  /** Shell commands for the real restarts of full mode (this machine's by default). */
  commands: { postgresRestart: string; rabbitStop: string; rabbitStart: string };
}

const USAGE = `usage: npm run chaos -- [--short] [--cluster] [--runs N] [--seconds S] [--max-writes N] [--concurrency N] [--seed N] [--deadline S] [--keep] [--json FILE]
  --short        proxy outages instead of real broker/database restarts, about 2 minutes (what npm test runs)
  --cluster      3-node RabbitMQ cluster (quorum queues), two replicas of everything, PgBouncer; with --short, shorter
  --runs N       repeat the whole run N times (default 1); exits non-zero if any run finds a violation
  --seconds S    minimum load duration per run (default 120, short 50)
  --deadline S   a run still going S seconds after it began stops, tears down and fails, naming its phase
  --keep         keep the database, queues and process logs of each run (a failed run keeps its logs anyway)
  --json FILE    also write the reports as JSON
environment: CHAOS_DATABASE_URL / CHAOS_AMQP_URL (else TEST_*, else local defaults), CHAOS_CLUSTER_PORT (--cluster, default 5682),
  CHAOS_PG_RESTART_CMD, CHAOS_RABBIT_STOP_CMD, CHAOS_RABBIT_START_CMD (full mode)`;

/** A command line the suite cannot run; its message ends with the usage. */
export class UsageError extends Error {}

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ChaosOptions {
  try {
    return fromArgs(argv, env);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
}

function fromArgs(argv: readonly string[], env: NodeJS.ProcessEnv): ChaosOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      short: { type: 'boolean', default: false },
      cluster: { type: 'boolean', default: false },
      runs: { type: 'string' },
      seconds: { type: 'string' },
      'max-writes': { type: 'string' },
      concurrency: { type: 'string' },
      seed: { type: 'string' },
      deadline: { type: 'string' },
      keep: { type: 'boolean', default: false },
      json: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const short = values.short === true;
  const cluster = values.cluster === true;
  const int = (v: string | undefined, fallback: number, name: string): number => {
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name} must be a positive integer\n${USAGE}`);
    return n;
  };
  const rpcTimeoutMs = 3000;
  return {
    mode: short ? 'short' : 'full',
    cluster,
    clusterPort: int(env.CHAOS_CLUSTER_PORT, 5682, 'CHAOS_CLUSTER_PORT'),
    runs: int(values.runs, 1, 'runs'),
    seconds: int(values.seconds, cluster ? (short ? 35 : 90) : short ? 50 : 120, 'seconds'),
    maxWrites: int(values['max-writes'], short ? 4000 : 12000, 'max-writes'),
    concurrency: int(values.concurrency, short ? 6 : 8, 'concurrency'),
    seed: int(values.seed, Math.floor(Math.random() * 2 ** 31) + 1, 'seed'),
    deadlineSeconds: values.deadline === undefined ? undefined : int(values.deadline, 0, 'deadline'),
    keep: values.keep === true,
    jsonReport: values.json,
    databaseUrl: env.CHAOS_DATABASE_URL ?? env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    amqpUrl: env.CHAOS_AMQP_URL ?? env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    rpcTimeoutMs,
    recurringIntervalMs: 1000,
    eventRetryBaseMs: 100,
    outboxPollMs: 500,
    recoverTimeoutMs: 60_000,
    drainTimeoutMs: short ? 40_000 : 90_000,
    // A key answers 409 only while a twin's transaction runs, and after recovery none should still
    // run; one that was cut off mid-way may take a while to end: give it two RPC timeouts and some.
    stuckKeyMs: rpcTimeoutMs * 2 + 6000,
    commands: {
      postgresRestart: env.CHAOS_PG_RESTART_CMD ?? 'pg_ctlcluster --skip-systemctl-redirect 15 main restart',
      rabbitStop: env.CHAOS_RABBIT_STOP_CMD ?? 'rabbitmqctl stop_app',
      rabbitStart: env.CHAOS_RABBIT_START_CMD ?? 'rabbitmqctl start_app',
    },
  };
}
