import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer } from 'node:net';
import { basename, join } from 'node:path';
import pg from 'pg';
import { createApiKey } from '@bo/gateway';
import { createDb, deleteTopology } from '@bo/runtime';
import { freePort, SERVING_NODE_FLAGS, repoRoot, systemTopology } from '@bo/launcher';
import { startBalancer, type Balancer } from './balancer';
import { log } from './log';
import { LAUNCHER_ENTRY, type Mode } from './options';

export const ORG = 1;

/** The real system of one mode, started as it is deployed, over a database of its own. */
export interface LaunchedSystem {
  mode: Mode;
  base: string;
  token: string;
  databaseUrl: string;
  busPrefix: string;
  /** The launcher process; the services of the RabbitMQ mode are its children. */
  pid: number;
  readonly stop: () => Promise<void>;
}

/**
 * `npm start` with DATABASE_URL and AMQP_URL (gateway and each service its own process over
 * RabbitMQ), or with DATABASE_URL alone (everything in one process on the in-process bus), on a
 * fresh database that stop() drops, with an API key for organization 1. `root` is the checkout whose
 * launcher starts (another commit's, for `--baseline`); its API-key table must be this one's.
 */
export async function launchSystem(
  mode: Mode,
  opts: { pgUrl: string; amqpUrl: string; replicas?: number },
  root: string = repoRoot,
): Promise<LaunchedSystem> {
  // Before the database is made, so a failed compile leaves nothing behind.
  await compileEInvoiceRules(root);
  const stamp = Date.now().toString(36);
  const overBus = mode !== 'in-process';
  const replicas = mode === 'replicated' ? (opts.replicas ?? 2) : 1;
  // A checkout's directory name tells its databases apart (a --subject and a --baseline both run beside none of this one's).
  const other =
    root === repoRoot
      ? ''
      : `_${basename(root)
          .replace(/[^a-z0-9]/gi, '')
          .toLowerCase()
          .slice(0, 12)}`;
  const tag = `${mode === 'rabbitmq' ? 'mq' : mode === 'replicated' ? `mq${replicas}` : 'mem'}${other}`;
  const dbName = `bo_bench_${stamp}_${tag}`;
  const admin = new pg.Client({ connectionString: opts.pgUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${dbName}`);
  } finally {
    await admin.end();
  }
  const url = new URL(opts.pgUrl);
  url.pathname = `/${dbName}`;
  const databaseUrl = url.toString();
  const busPrefix = `bench_${tag}_${stamp}`;
  const port = await freePorts(replicas);
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    AMQP_URL: overBus ? opts.amqpUrl : '',
    REPLICAS: String(replicas),
    BUS_PREFIX: busPrefix,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    // The bench measures what the machine serves one organization: its per-organization limits sit
    // far above that, so every request still passes the limiter and none is refused by it.
    RATE_LIMIT_READS_PER_SECOND: '1000000',
    RATE_LIMIT_WRITES_PER_SECOND: '1000000',
    RATE_LIMIT_IN_FLIGHT: '100000',
  };
  const child = spawn(process.execPath, [...SERVING_NODE_FLAGS, join(root, LAUNCHER_ENTRY)], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let base = `http://127.0.0.1:${port}`;
  let balancer: Balancer | undefined;

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await balancer?.close();
    await stopChild(child);
    if (overBus) await deleteTopology(opts.amqpUrl, systemTopology(busPrefix)).catch(() => undefined);
    // BENCH_KEEP_DATABASE=1 leaves the database for EXPLAIN after the run (drop it by hand).
    if (process.env.BENCH_KEEP_DATABASE === '1') return void process.stderr.write(`bench: kept database ${dbName}\n`);
    const drop = new pg.Client({ connectionString: opts.pgUrl });
    await drop.connect();
    try {
      await drop.query(`drop database if exists ${dbName} with (force)`);
    } finally {
      await drop.end();
    }
  };

  try {
    // Every replica boots at once on the same cores: the wait grows with their number.
    for (let i = 0; i < replicas; i++) await waitHealthy(`http://127.0.0.1:${port + i}`, child, 60_000 * replicas);
    if (replicas > 1) {
      // The gateways behind one address, each connection to the next one, as a load balancer would.
      balancer = await startBalancer(Array.from({ length: replicas }, (_, i) => port + i));
      base = balancer.base;
    }
    const db = createDb(databaseUrl, 'gateway', 1);
    try {
      const { key } = await createApiKey(db, ORG, 'bench');
      return { mode, base, token: key, databaseUrl, busPrefix, pid: child.pid as number, stop };
    } finally {
      await db.destroy();
    }
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}

/**
 * Compiles the checkout's e-invoice rules into its cache before its system starts. Invoicing
 * compiles them in the background at start where they are not (a fresh checkout: 20 to 60 s of a
 * core per rule set, minutes in all), which outlasts the wait for idle processes and was measured
 * as part of the first run's requests (create invoice on a fresh clone: 3.2 ms of machine CPU a
 * request in the compiler's process). Nothing to do when they are cached; a checkout without the
 * function (older commits as a baseline) is left as it is.
 */
async function compileEInvoiceRules(root: string): Promise<void> {
  const started = Date.now();
  const script =
    "const d = require('@bo/documents'); Promise.resolve(d.prepareEInvoiceRules && d.prepareEInvoiceRules())" +
    '.catch((e) => { console.error(e); process.exit(1); })';
  await promisify(execFile)(process.execPath, ['-e', script], { cwd: root });
  const seconds = (Date.now() - started) / 1000;
  if (seconds > 2) log(`compiled the e-invoice rules of ${root} first (${seconds.toFixed(0)} s)`);
}

/** The first of `n` consecutive free ports (the launcher puts gateway replica i on PORT + i). */
async function freePorts(n: number): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const first = await freePort();
    const rest = await Promise.all(Array.from({ length: n - 1 }, (_, i) => portFree(first + i + 1)));
    if (rest.every(Boolean)) return first;
  }
  throw new Error(`no ${n} consecutive free ports`);
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** SIGINT as Ctrl-C would send (the launcher stops its children cleanly), or the signal given; SIGKILL after `graceMs`. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGINT', graceMs = 30_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

async function waitHealthy(base: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error('the system exited during start-up');
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the system did not become healthy within ${timeoutMs / 1000} s`);
}
