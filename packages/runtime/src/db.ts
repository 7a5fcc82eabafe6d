import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

export type { Knex };

// numeric stays a string (exact decimals); bigint counts and dates need no time zone games.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.DATE, (v) => v);

export interface Migration {
  name: string;
  up(trx: Knex.Transaction, schema: string): Promise<void>;
}

export function createDb(url: string, schema: string, poolMax = 10): Knex {
  return knexFactory({
    client: 'pg',
    connection: url,
    searchPath: [schema, 'public'],
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: 10_000,
  });
}

/**
 * Creates the schema and applies pending migrations in one transaction under an advisory lock, so
 * several instances starting together apply each migration exactly once.
 */
export async function migrate(db: Knex, schema: string, migrations: readonly Migration[]): Promise<string[]> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`migrate:${schema}`]);
    await trx.raw('create schema if not exists ??', [schema]);
    await trx.raw('create table if not exists ??.schema_migrations (name text primary key, applied_at timestamptz not null default now())', [schema]);
    const applied = new Set((await trx.withSchema(schema).table('schema_migrations').select('name')).map((r: { name: string }) => r.name));
    const done: string[] = [];
    for (const m of migrations) {
      if (applied.has(m.name)) continue;
      await m.up(trx, schema);
      await trx.withSchema(schema).table('schema_migrations').insert({ name: m.name });
      done.push(m.name);
    }
    return done;
  });
}

/** Tables the runtime keeps in every service schema: the outbox and the inbox. */
export const runtimeMigrations: Migration[] = [
  {
    name: '000_runtime_outbox_inbox',
    async up(trx, schema) {
      await trx.schema.withSchema(schema).createTable('outbox', (t) => {
        t.bigIncrements('id');
        t.uuid('event_id').notNullable().unique();
        t.text('type').notNullable();
        t.integer('org_id').notNullable();
        t.jsonb('envelope').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.timestamp('published_at', { useTz: true });
        t.integer('attempts').notNullable().defaultTo(0);
        t.text('last_error');
      });
      await trx.raw('create index outbox_unpublished on ??.outbox (id) where published_at is null', [schema]);
      await trx.schema.withSchema(schema).createTable('inbox', (t) => {
        t.text('consumer').notNullable();
        t.uuid('event_id').notNullable();
        t.text('type').notNullable();
        t.timestamp('processed_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
        t.primary(['consumer', 'event_id']);
      });
    },
  },
  {
    name: '001_runtime_document_sequences',
    async up(trx, schema) {
      await trx.schema.withSchema(schema).createTable('document_sequences', (t) => {
        t.integer('org_id').notNullable();
        t.string('series', 20).notNullable();
        t.bigInteger('last_value').notNullable();
        t.primary(['org_id', 'series']);
      });
    },
  },
];
