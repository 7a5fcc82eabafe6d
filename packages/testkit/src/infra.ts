import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import pg from 'pg';

/**
 * Where tests find PostgreSQL and RabbitMQ: TEST_DATABASE_URL / TEST_AMQP_URL, else the default
 * local ports, else testcontainers where a Docker engine runs, else a failure saying what to do.
 */
const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/postgres';
const DEFAULT_AMQP = 'amqp://guest:guest@127.0.0.1:5672';

let pgUrl: Promise<string> | undefined;
let amqpUrl: Promise<string> | undefined;

export function testPostgresUrl(): Promise<string> {
  pgUrl ??= resolveService('TEST_DATABASE_URL', DEFAULT_PG, 5432, 'postgres:16-alpine', 'PostgreSQL');
  return pgUrl;
}

export function testAmqpUrl(): Promise<string> {
  amqpUrl ??= resolveService('TEST_AMQP_URL', DEFAULT_AMQP, 5672, 'rabbitmq:3.13-alpine', 'RabbitMQ');
  return amqpUrl;
}

async function resolveService(envVar: string, fallback: string, port: number, image: string, what: string): Promise<string> {
  const fromEnv = process.env[envVar];
  if (fromEnv) return fromEnv;
  if (await portOpen('127.0.0.1', port)) return fallback;
  try {
    return await startContainer(image, port, what);
  } catch (err) {
    throw new Error(
      `${what} is needed for integration tests: set ${envVar}, or run it on 127.0.0.1:${port}, ` +
        `or provide a Docker engine for testcontainers (${(err as Error).message})`,
      { cause: err },
    );
  }
}

async function startContainer(image: string, port: number, what: string): Promise<string> {
  // Loaded only here: most machines never need it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { GenericContainer, Wait } = require('testcontainers') as typeof import('testcontainers');
  const container = new GenericContainer(image);
  const env: Record<string, string> = what === 'PostgreSQL' ? { POSTGRES_HOST_AUTH_METHOD: 'trust' } : {};
  const started = await container
    .withEnvironment(env)
    .withExposedPorts(port)
    .withWaitStrategy(
      what === 'PostgreSQL' ? Wait.forLogMessage(/ready to accept connections/, 2) : Wait.forLogMessage(/Server startup complete/),
    )
    .start();
  const host = started.getHost();
  const mapped = started.getMappedPort(port);
  return what === 'PostgreSQL' ? `postgres://postgres@${host}:${mapped}/postgres` : `amqp://guest:guest@${host}:${mapped}`;
}

/**
 * Whether something listens on the port. A closed local port refuses at once, so the timeout only
 * bounds a connect the kernel has accepted but a busy test process has not yet seen: generous, so
 * a loaded machine (parallel jest workers on 2 cores) is not taken for a machine without the server.
 */
function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 10_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh database per test file, dropped afterwards: empty, or a copy of `template` (a database
 * `migratedTemplate` made, every schema already migrated).
 */
export async function createTestDatabase(opts: { template?: string } = {}): Promise<TestDatabase> {
  const adminUrl = await testPostgresUrl();
  const name = uniqueName('bo_test');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}${opts.template ? ` template ${opts.template}` : ''}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}
