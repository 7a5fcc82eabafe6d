import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { locateBinaries, openDirectory, ROOT_AREA } from './binaries';
import { isRoot, postgresUser, userCan } from './run-as';
import { initialiseIfNeeded, startServer } from './server';

export interface EmbeddedDatabase {
  url: string;
  /** Where its data lives, for the start-up message. */
  dataDir: string;
  stop(): Promise<void>;
}

const PASSWORD = 'backoffice';

/**
 * PostgreSQL for `npm start` with nothing configured: data under .data/postgres (git-ignored). As
 * root, PostgreSQL runs as the `postgres` user; when that user cannot reach the clone (a private
 * directory), the binaries are copied to /var/lib/backoffice and the data is kept there too.
 */
export async function startEmbeddedPostgres(rootDir: string, port: number): Promise<EmbeddedDatabase> {
  const user = postgresUser();
  const binaries = locateBinaries(user);
  const dataDir = dataDirFor(rootDir, user);
  const cluster = { dataDir, port, password: PASSWORD, binaries, user };
  await initialiseIfNeeded(cluster);
  const server = await startServer(cluster);
  try {
    await ensureDatabase(port);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return { url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/backoffice`, dataDir, stop: () => server.stop() };
}

/** Where a clone's data lives: in the clone, or (root, private clone) under ROOT_AREA. */
export function dataDirFor(rootDir: string, user: ReturnType<typeof postgresUser> = postgresUser()): string {
  const inClone = join(rootDir, '.data', 'postgres');
  if (!isRoot()) return inClone;
  mkdirSync(dirname(inClone), { recursive: true });
  if (userCan(user, '-x', dirname(inClone))) return inClone;
  // One data directory per clone, kept across restarts, where the postgres user can reach it.
  const id = createHash('sha256').update(rootDir).digest('hex').slice(0, 12);
  openDirectory(join(ROOT_AREA, `data-${id}`));
  return join(ROOT_AREA, `data-${id}`, 'postgres');
}

async function ensureDatabase(port: number): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password: PASSWORD, database: 'postgres' });
  await client.connect();
  try {
    const { rowCount } = await client.query(`select 1 from pg_database where datname = 'backoffice'`);
    if (!rowCount) await client.query('create database backoffice');
  } finally {
    await client.end();
  }
}
