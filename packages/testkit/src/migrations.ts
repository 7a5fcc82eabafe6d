import { createDb, migrate, type Knex, type Migration } from '@bo/runtime';
import { createTestDatabase, type TestDatabase } from './infra';

/** The migrations of `all` before the one named `name`, or up to and including it (`including`). */
export function migrationsUpTo(all: readonly Migration[], name: string, opts: { including?: boolean } = {}): Migration[] {
  const at = all.findIndex((m) => m.name === name);
  if (at < 0) throw new Error(`no migration named ${name}`);
  return all.slice(0, opts.including ? at + 1 : at);
}

export interface MigratedDatabase {
  database: TestDatabase;
  db: Knex;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

/**
 * A new test database with `schema` migrated by `migrations`: for migration tests, the schema as an
 * earlier version left it (`migrationsUpTo`), on which the test writes old rows and migrates the rest.
 */
export async function migratedDatabase(schema: string, migrations: readonly Migration[], poolMax?: number): Promise<MigratedDatabase> {
  const database = await createTestDatabase();
  const db = createDb(database.url, schema, poolMax);
  const drop = async () => {
    await db.destroy();
    await database.drop();
  };
  try {
    await migrate(db, schema, migrations);
  } catch (err) {
    await drop();
    throw err;
  }
  return { database, db, drop };
}
