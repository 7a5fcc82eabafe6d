import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serviceNames } from '@bo/contracts';
import { createApiKey, hashKey } from '@bo/gateway';
import { createDb, createLogger, onShutdown, stopTracing } from '@bo/runtime';
import { DEVELOPMENT_DEFAULTS, passedThrough } from './dev-defaults';
import { startEmbeddedPostgres } from './embedded';
import { repoRoot } from './paths';
import { System } from './system';
import { SERVING_NODE_FLAGS } from './node-flags';

const DEV_ORG = 1;

/**
 * `npm start`. With DATABASE_URL and AMQP_URL unset: everything in this process on an embedded
 * PostgreSQL and the in-process bus. With both set: the gateway and each service as its own process.
 */
export async function main(): Promise<void> {
  const { DATABASE_URL, AMQP_URL } = process.env;
  if (DATABASE_URL && AMQP_URL) return startProcesses();
  if (AMQP_URL) {
    console.error('AMQP_URL is set but DATABASE_URL is not: set both (one process per service), DATABASE_URL alone, or neither.');
    process.exit(1);
  }
  return startSingleProcess(DATABASE_URL);
}

/** Everything in this process on the in-process bus, over the given database or an embedded one. */
async function startSingleProcess(databaseUrl: string | undefined): Promise<void> {
  const log = createLogger('launcher', process.env.LOG_LEVEL ?? 'info');
  const pgPort = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
  const db = databaseUrl
    ? { url: databaseUrl, dataDir: undefined, stop: () => Promise.resolve() }
    : await startEmbeddedPostgres(repoRoot, pgPort);
  const system = new System({
    databaseUrl: db.url,
    busPrefix: process.env.BUS_PREFIX,
    port: Number(process.env.PORT ?? 3000),
    logLevel: process.env.LOG_LEVEL ?? 'warn',
    env: passedThrough(process.env),
  });
  let key: string;
  try {
    await system.start();
    key = await devApiKey(system);
  } catch (err) {
    // Nothing is left running behind a failed start, the embedded PostgreSQL least of all.
    await system.stop().catch(() => undefined);
    await db.stop();
    throw err;
  }
  console.log(`\nBack-office API listening on ${system.url}`);
  console.log(
    `${databaseUrl ? 'PostgreSQL' : 'Embedded PostgreSQL'}: ${db.url.replace(/:[^:@/]+@/, ':***@')}${db.dataDir ? ` (data in ${db.dataDir})` : ''}`,
  );
  console.log(`Development organization: org_id "${DEV_ORG}"`);
  console.log(`Development API key (Authorization: Bearer ...):\n${key}\n`);
  onShutdown(log, async () => {
    await system.stop();
    await db.stop();
    await stopTracing();
  });
}

/** Reuses the development key across restarts so a developer's scripts keep working. */
async function devApiKey(system: System): Promise<string> {
  const dir = join(repoRoot, '.data');
  const file = join(dir, 'dev-api-key');
  const dbUrl = system.config.DATABASE_URL;
  const db = createDb(dbUrl, 'gateway', 1);
  try {
    try {
      const saved = readFileSync(file, 'utf8').trim();
      const live = await db('api_keys')
        .where({ key_hash: hashKey(saved) })
        .whereNull('revoked_at')
        .first<{ id: number } | undefined>('id');
      if (live) return saved;
    } catch {
      /* no saved key yet */
    }
    const { key } = await createApiKey(db, DEV_ORG, 'development');
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, `${key}\n`, { mode: 0o600 });
    return key;
  } finally {
    await db.destroy();
  }
}

function startProcesses(): void {
  const log = createLogger('launcher', process.env.LOG_LEVEL ?? 'info');
  // REPLICAS: that many instances of every service and of the gateway (the gateways on PORT, PORT + 1 ...),
  // as competing consumers over the same RabbitMQ and PostgreSQL (docs/scaling.md).
  const replicas = Number(process.env.REPLICAS ?? 1);
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 16) {
    console.error(`REPLICAS must be a whole number from 1 to 16, not "${process.env.REPLICAS}"`);
    process.exit(1);
  }
  const port = Number(process.env.PORT ?? 3000);
  const entries = Array.from({ length: replicas }, (_, i) => [
    ...serviceNames.map((s) => ({ entry: join(repoRoot, 'services', s, 'dist', 'main.js'), env: process.env })),
    { entry: join(repoRoot, 'services', 'gateway', 'dist', 'main.js'), env: { ...process.env, PORT: String(port + i) } },
  ]).flat();
  // PROFILE_DIR: each process writes a V8 CPU profile there when it exits (--cpu-prof cannot go
  // through NODE_OPTIONS), to see where a bench run's CPU went; see docs/performance.md.
  const profileDir = process.env.PROFILE_DIR;
  const nodeArgs = [...SERVING_NODE_FLAGS, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];
  const children: ChildProcess[] = [];
  let stopping = false;
  for (const { entry, env } of entries) {
    const child = spawn(process.execPath, [...nodeArgs, entry], { stdio: 'inherit', env: { ...DEVELOPMENT_DEFAULTS, ...env } });
    child.on('exit', (code, signal) => {
      if (stopping) return;
      log.error({ entry, code, signal }, 'a process exited; stopping the others');
      void stopAll(1);
    });
    children.push(child);
  }
  log.info(`started ${children.length} processes; gateway on port ${replicas > 1 ? `${port} to ${port + replicas - 1}` : port}`);
  const stopAll = async (code: number) => {
    stopping = true;
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) =>
            c.exitCode !== null || c.signalCode !== null ? resolve() : (c.once('exit', () => resolve()), c.kill('SIGTERM')),
          ),
      ),
    );
    process.exit(code);
  };
  onShutdown(log, () => stopAll(0));
}
