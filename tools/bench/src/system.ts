import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { createApiKey } from '@bo/gateway';
import { createDb, deleteTopology } from '@bo/runtime';
import { freePort, SERVING_NODE_FLAGS, repoRoot, systemTopology } from '@bo/launcher';
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
export async function launchSystem(mode: Mode, opts: { pgUrl: string; amqpUrl: string }, root: string = repoRoot): Promise<LaunchedSystem> {
  const stamp = Date.now().toString(36);
  const tag = `${mode === 'rabbitmq' ? 'mq' : 'mem'}${root === repoRoot ? '' : '_base'}`;
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
  const port = await freePort();
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    AMQP_URL: mode === 'rabbitmq' ? opts.amqpUrl : '',
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
  const base = `http://127.0.0.1:${port}`;

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await stopChild(child);
    if (mode === 'rabbitmq') await deleteTopology(opts.amqpUrl, systemTopology(busPrefix)).catch(() => undefined);
    const drop = new pg.Client({ connectionString: opts.pgUrl });
    await drop.connect();
    try {
      await drop.query(`drop database if exists ${dbName} with (force)`);
    } finally {
      await drop.end();
    }
  };

  try {
    await waitHealthy(base, child);
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

/** SIGINT as Ctrl-C would send (the launcher stops its children cleanly), or the signal given; SIGKILL after `graceMs`. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGINT', graceMs = 30_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

async function waitHealthy(base: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error('the system exited during start-up');
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the system did not become healthy within 60 s');
}
