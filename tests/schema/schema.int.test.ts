/**
 * Each service's `schema.sql` is today's schema in one file, for a reader: what its migrations leave in
 * a new database (the runtime's tables, then the service's own), as `pg_dump --schema-only` prints it
 * less what changes from run to run (its version, session settings, the random `\restrict` key). The
 * test migrates a fresh database per service and fails when the file differs; after adding a
 * migration, `UPDATE_SCHEMA_SQL=1 npx jest tests/schema` writes the files again.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalogService } from '@bo/catalog';
import { invoicingService } from '@bo/invoicing';
import { partnersService } from '@bo/partners';
import { salesService } from '@bo/sales';
import { webhooksService } from '@bo/webhooks';
import { createTestDatabase, migratedTemplate, serviceMigrations } from '@bo/testkit';

const root = join(__dirname, '..', '..');
const services = [catalogService, partnersService, salesService, invoicingService, webhooksService];

/** pg_dump's text without what changes from one run or machine to the next (its version, session settings). */
export function readableSchema(dump: string): string {
  return (
    dump
      .split('\n')
      .filter(
        (line) =>
          !/^-- Dumped (from|by)/.test(line) &&
          !/^\\(un)?restrict /.test(line) &&
          !/^SET /.test(line) &&
          !/^SELECT pg_catalog\.set_config/.test(line),
      )
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim() + '\n'
  );
}

describe.each(services.map((s) => [s.name, s] as const))('%s schema.sql', (name, def) => {
  it('is what the migrations make', async () => {
    const database = await createTestDatabase({ template: await migratedTemplate(name, [serviceMigrations(def)]) });
    try {
      const url = new URL(database.url);
      const dump = execFileSync(
        'pg_dump',
        [
          '--schema-only',
          '--no-owner',
          '--no-privileges',
          `--schema=${name}`,
          `--host=${url.hostname}`,
          `--port=${url.port || '5432'}`,
          `--username=${decodeURIComponent(url.username)}`,
          url.pathname.slice(1),
        ],
        { encoding: 'utf8', env: { ...process.env, PGPASSWORD: decodeURIComponent(url.password) } },
      );
      const file = join(root, 'services', name, 'schema.sql');
      const schema = readableSchema(dump);
      if (process.env.UPDATE_SCHEMA_SQL === '1') writeFileSync(file, schema);
      expect(schema).toBe(readFileSync(file, 'utf8'));
    } finally {
      await database.drop();
    }
  });
});
