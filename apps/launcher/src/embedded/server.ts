import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Binaries } from './binaries';
import type { RunAs } from './run-as';

export interface Cluster {
  dataDir: string;
  port: number;
  password: string;
  binaries: Binaries;
  user: RunAs;
}

/** Creates the cluster when its data directory is empty; refuses one made by another major version. */
export async function initialiseIfNeeded(c: Cluster): Promise<void> {
  const versionFile = join(c.dataDir, 'PG_VERSION');
  if (existsSync(versionFile)) {
    const made = readFileSync(versionFile, 'utf8').trim();
    if (made !== c.binaries.major) {
      throw new Error(
        `The data directory ${c.dataDir} was made by PostgreSQL ${made}, but the embedded PostgreSQL is ${c.binaries.major}: ` +
          `move it away (or delete it to start empty), or set DATABASE_URL to a PostgreSQL ${made} server.`,
      );
    }
    return;
  }
  mkdirSync(c.dataDir, { recursive: true, mode: 0o700 });
  if (c.user.uid !== undefined) chownSync(c.dataDir, c.user.uid, c.user.gid ?? c.user.uid);
  const pwfile = join(tmpdir(), `backoffice-pg-${randomBytes(6).toString('hex')}`);
  writeFileSync(pwfile, `${c.password}\n`, { mode: 0o600 });
  if (c.user.uid !== undefined) chownSync(pwfile, c.user.uid, c.user.gid ?? c.user.uid);
  try {
    await run(c, c.binaries.initdb, [
      `--pgdata=${c.dataDir}`,
      '--auth=password',
      '--username=postgres',
      `--pwfile=${pwfile}`,
      '--encoding=UTF8',
      '--no-locale',
    ]);
  } finally {
    unlinkSync(pwfile);
  }
}

/** Starts the server on 127.0.0.1 only and waits until it takes connections. */
export async function startServer(c: Cluster): Promise<{ stop(): Promise<void> }> {
  if (!(await portIsFree(c.port))) throw new Error(explainStartFailure('Address already in use', c));
  const child = spawn(
    c.binaries.postgres,
    ['-D', c.dataDir, '-p', String(c.port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${tmpdir()}`],
    {
      ...ids(c.user),
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  await waitReady(c, child, () => stderr);
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        // SIGINT is PostgreSQL's fast shutdown: sessions end, the data stays consistent.
        child.kill('SIGINT');
      }),
  };
}

async function waitReady(c: Cluster, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  let exited = false;
  child.once('exit', () => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(explainStartFailure(stderr(), c));
    const client = new pg.Client({ host: '127.0.0.1', port: c.port, user: 'postgres', password: c.password, database: 'postgres' });
    try {
      await client.connect();
      // Whoever answers on the port must be this server, not one that took the port meanwhile.
      const { rows } = await client.query('show data_directory');
      await client.end();
      if (exited || (rows[0] as { data_directory: string }).data_directory !== c.dataDir)
        throw new Error(explainStartFailure('Address already in use', c));
      return;
    } catch (err) {
      if ((err as Error).message.startsWith('Port ')) {
        child.kill('SIGINT');
        throw err;
      }
      await client.end().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  child.kill('SIGINT');
  throw new Error(`The embedded PostgreSQL did not accept connections within 60 s: ${lastLine(stderr())}`);
}

/** PostgreSQL's own words turned into what to do about them. */
export function explainStartFailure(stderr: string, c: Pick<Cluster, 'port' | 'dataDir'>): string {
  if (/could not bind|Address already in use/i.test(stderr)) {
    return `Port ${c.port} is already in use, so the embedded PostgreSQL cannot listen on it: stop what uses it, or set EMBEDDED_PG_PORT to a free port.`;
  }
  if (/lock file .* already exists|another server might be running/i.test(stderr)) {
    return `Another PostgreSQL is already running on the data directory ${c.dataDir}: stop that npm start first.`;
  }
  if (/permission denied/i.test(stderr)) {
    return `The embedded PostgreSQL may not use ${c.dataDir} (permission denied): give its user that directory, or set DATABASE_URL to a PostgreSQL server.`;
  }
  return `The embedded PostgreSQL stopped during start-up: ${lastLine(stderr)}`;
}

function lastLine(text: string): string {
  return text.trim().split('\n').filter(Boolean).at(-1) ?? 'no output';
}

function ids(user: RunAs): { uid?: number; gid?: number } {
  return user.uid === undefined ? {} : { uid: user.uid, gid: user.gid };
}

function run(c: Cluster, command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...ids(c.user), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (err) => reject(new Error(`Could not run ${command} as ${c.user.name}: ${err.message}`)));
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`initdb failed for ${c.dataDir}: ${lastLine(stderr)}`))));
  });
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
