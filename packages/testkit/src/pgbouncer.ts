import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A PgBouncer of a test's own (Debian's `pgbouncer` package), in transaction mode, in front of one
 * PostgreSQL database: one pooler database entry per schema, each of whose server connections has
 * its search_path set by `connect_query` (the runtime's pools set it once per connection, which a
 * pooler in transaction mode does not keep for them). Its config, auth file and log live in a temp
 * directory; the system's pgbouncer service is never touched. As root it drops to `nobody` (-u), as
 * PgBouncer refuses to run as root.
 */
export interface PgBouncerOptions {
  /** URL of the real database (trust authentication, as the test servers have it). */
  databaseUrl: string;
  /** One pooler database per schema, named after it. */
  schemas: readonly string[];
  /** Server connections per database entry (default 4). */
  poolSize?: number;
  /** Fixed port (a restart keeps it); a free one by default. */
  port?: number;
}

export interface PgBouncer {
  port: number;
  /** The pooler's URL for the schema's database entry. */
  urlFor(schema: string): string;
  /** The process id, for kill -9 in a fault. */
  pid(): number | undefined;
  /** Starts it again on the same port after it was killed or stopped. */
  start(): Promise<void>;
  /** kill -9 (every client and server connection drops). */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** Where the binary is: Debian installs it in /usr/sbin, which a non-root PATH may not hold. */
export function pgbouncerBinary(): string | undefined {
  for (const candidate of ['pgbouncer', '/usr/sbin/pgbouncer']) {
    if (spawnSync(candidate, ['--version'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  return undefined;
}

export async function startPgBouncer(opts: PgBouncerOptions): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error('pgbouncer is needed by this test: apt-get install -y pgbouncer (.ci/run installs it)');
  const target = new URL(opts.databaseUrl);
  const dbname = decodeURIComponent(target.pathname.slice(1)) || 'postgres';
  const user = decodeURIComponent(target.username) || 'postgres';
  const port = opts.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'bo-pgbouncer-'));
  chmodSync(dir, 0o777);
  const databases = opts.schemas.map(
    (schema) =>
      `${schema} = host=${target.hostname} port=${target.port || 5432} dbname=${dbname} user=${user} ` +
      `pool_size=${opts.poolSize ?? 4} connect_query='set search_path to "${schema}", public'`,
  );
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    ini,
    [
      '[databases]',
      ...databases,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 1000',
      'server_reset_query =',
      'ignore_startup_parameters = extra_float_digits,options',
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  );
  for (const f of ['users.txt', 'pgbouncer.ini']) chmodSync(join(dir, f), 0o644);
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const start = async () => {
    if (child) return;
    const args = process.getuid?.() === 0 ? ['-u', 'nobody', ini] : [ini];
    const started = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    started.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child = started;
    exited = new Promise((resolve) =>
      started.once('exit', () => {
        if (child === started) child = undefined;
        resolve();
      }),
    );
    const deadline = Date.now() + 10_000;
    while (!(await listening(port))) {
      if (!child || Date.now() > deadline) {
        started.kill('SIGKILL');
        throw new Error(`pgbouncer did not start on port ${port}: ${stderr.trim() || 'no output'}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const kill = async () => {
    child?.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    port,
    urlFor(schema) {
      if (!opts.schemas.includes(schema)) throw new Error(`no pooler database for schema ${schema}`);
      return `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${schema}`;
    },
    pid: () => child?.pid,
    start,
    kill,
    async stop() {
      // SIGTERM: PgBouncer shuts down at once (SIGINT would wait for every client to finish).
      child?.kill('SIGTERM');
      const timer = setTimeout(() => child?.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
