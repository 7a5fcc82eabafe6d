import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import pg from 'pg';
import { createDb, migrate, runtimeMigrations, type Migration, type ServiceDefinition } from '@bo/runtime';
import { testPostgresUrl } from './infra';

/** A schema and the migrations its owner runs on it at start-up, in order (a service's begin with the runtime's own). */
export interface SchemaMigrations {
  schema: string;
  migrations: readonly Migration[];
}

/** The migrations `startService` runs for a service: the runtime's tables, then the service's own. */
export const serviceMigrations = (def: Pick<ServiceDefinition, 'name' | 'migrations'>): SchemaMigrations => ({
  schema: def.name,
  migrations: [...runtimeMigrations, ...def.migrations],
});

const PREFIX = 'bo_tpl_';
/**
 * Which checkout built a template: two clones of the repository (a worktree beside the main one)
 * sharing one server each keep their own templates, so one's new migration never drops the template
 * another's running tests copy from.
 */
const CHECKOUT = createHash('sha256')
  .update(resolve(__dirname, '..', '..', '..'))
  .digest('hex')
  .slice(0, 6);

/**
 * The name of a database with `schemas` migrated, made once and then copied by every test that
 * starts from it (`CREATE DATABASE … TEMPLATE`, a file copy of a few megabytes) instead of each test
 * running every migration again. The name is a digest of each schema's migrations, names and code,
 * so a changed or added migration makes a new template, and the old ones of the same `label` (and
 * checkout) are dropped. A template is built under another name and renamed when complete, under an advisory lock,
 * so parallel test workers build it once and never copy half of one.
 */
export async function migratedTemplate(label: string, schemas: readonly SchemaMigrations[]): Promise<string> {
  const digest = createHash('sha256');
  for (const { schema, migrations } of schemas) for (const m of migrations) digest.update(`${schema}\0${m.name}\0${m.up.toString()}\0`);
  const name = `${PREFIX}${label}_${CHECKOUT}_${digest.digest('hex').slice(0, 16)}`;
  const adminUrl = await testPostgresUrl();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const exists = async () => (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
    if (await exists()) return name;
    await admin.query('select pg_advisory_lock(hashtext($1))', [PREFIX + label]);
    try {
      if (await exists()) return name;
      const building = `${name}_building`;
      await admin.query(`drop database if exists ${building} with (force)`);
      await admin.query(`create database ${building}`);
      const url = new URL(adminUrl);
      url.pathname = `/${building}`;
      for (const { schema, migrations } of schemas) {
        const db = createDb(url.toString(), schema, 1);
        try {
          await migrate(db, schema, migrations);
        } finally {
          await db.destroy();
        }
      }
      await admin.query(`alter database ${building} rename to ${name}`);
      const stale = await admin.query<{ datname: string }>(`select datname from pg_database where datname like $1 and datname <> $2`, [
        `${PREFIX}${label}\\_${CHECKOUT}\\_%`,
        name,
      ]);
      for (const { datname } of stale.rows) await admin.query(`drop database if exists ${datname} with (force)`);
      return name;
    } finally {
      await admin.query('select pg_advisory_unlock(hashtext($1))', [PREFIX + label]);
    }
  } finally {
    await admin.end();
  }
}
