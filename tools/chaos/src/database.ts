import pg from 'pg';
import { isDbUnavailable } from '@bo/runtime';

/** A fresh database for one run, made and dropped through the real server (not the proxy). */
export interface RunDatabase {
  name: string;
  /** URL of the run's database on the real server. */
  url: string;
  /** The same database through a proxy listening on `port`. */
  urlVia(host: string, port: number): string;
  /** A small pool on the real server, for the checks. */
  pool: pg.Pool;
  drop(): Promise<void>;
}

export async function createRunDatabase(adminUrl: string, name: string): Promise<RunDatabase> {
  await withAdmin(adminUrl, (c) => c.query(`create database ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  pool.on('error', () => undefined);
  return {
    name,
    url: url.toString(),
    urlVia(host, port) {
      const via = new URL(url.toString());
      via.hostname = host;
      via.port = String(port);
      return via.toString();
    },
    pool,
    async drop() {
      await pool.end().catch(() => undefined);
      await withAdmin(adminUrl, (c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}

async function withAdmin<T>(adminUrl: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** Runs a query, retrying while the server is restarting. */
export async function queryEventually<R extends pg.QueryResultRow>(
  pool: pg.Pool,
  sql: string,
  params: unknown[] = [],
  timeoutMs = 30_000,
): Promise<R[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return (await pool.query<R>(sql, params)).rows;
    } catch (err) {
      if (Date.now() > deadline || !isDbUnavailable(err)) throw err;
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}

/** Tables that exist in the run's database, as `schema.table`. */
export async function existingTables(pool: pg.Pool): Promise<Set<string>> {
  const rows = await queryEventually<{ t: string }>(pool, `select table_schema || '.' || table_name as t from information_schema.tables`);
  return new Set(rows.map((r) => r.t));
}
