import { createHash } from 'node:crypto';
import { withLockTimeout, type Migration } from './db';
import { quoteIdentifier, recordJsonSql, type RecordFields } from './record-fields';

/** The column of a table that keeps each row's record as JSON text (storedRecordMigration). */
export const RECORD_JSON_COLUMN = 'record_json';

/**
 * A migration that gives `table` a column keeping each row's record as the JSON text a list answers
 * (recordJsonSql's, to the byte), written by PostgreSQL whenever the row is, so a list reads its
 * records instead of writing them on every request (selectRecordPage `stored`): writing a 25-partner
 * page's records was half of what PostgreSQL spent on a list (docs/performance.md, "Why the code is
 * shaped so").
 *
 * A trigger writes it, before every insert and update of a row, whatever the statement set it to,
 * so no write can leave it behind; it is NOT NULL, so a write that skipped the trigger would fail
 * rather than leave a row out of a list. Not a generated column: one may only call immutable
 * functions, to_json is stable, and wrapping it in an immutable function made PostgreSQL plan the
 * wrapper's body once per field on every statement, doubling the cost of a single-row insert; the
 * trigger costs a few percent.
 *
 * Its name carries a digest of the expression, so the migration is repeatable: when the record's
 * fields change, the name changes, and the next start-up replaces the trigger's function, adds the
 * column again and writes every row's record (one UPDATE of the whole table, in the migration's
 * transaction). Keep it last in the service's migrations.
 */
export function storedRecordMigration<R>(table: string, fields: RecordFields<R>): Migration {
  const expression = recordJsonSql(fields, 'new');
  const digest = createHash('sha256').update(`${table}\n${expression}`).digest('hex').slice(0, 12);
  return {
    name: `${RECORD_JSON_COLUMN}_${table}_${digest}`,
    async up(trx, schema) {
      // knex numbers every `?` of a statement as a placeholder, even inside a literal.
      if (expression.includes('?')) throw new Error(`the record of ${table} names a field or column with a '?'`);
      const target = `${quoteIdentifier(schema)}.${quoteIdentifier(table)}`;
      const column = quoteIdentifier(RECORD_JSON_COLUMN);
      const writer = `${quoteIdentifier(schema)}.${quoteIdentifier(`${table}_${RECORD_JSON_COLUMN}`)}`;
      await trx.raw(
        `create or replace function ${writer}() returns trigger language plpgsql as $$
         begin
           new.${column} := ${expression};
           return new;
         end $$`,
      );
      await withLockTimeout(trx, async () => {
        // Whatever shape an earlier version left the column in, it starts again empty.
        await trx.raw(`drop trigger if exists ${column} on ${target}`);
        await trx.raw(`alter table ${target} drop column if exists ${column}`);
        await trx.raw(`alter table ${target} add column ${column} text`);
        await trx.raw(`create trigger ${column} before insert or update on ${target} for each row execute function ${writer}()`);
        // Every row through the trigger, then the column may be required.
        await trx.raw(`update ${target} set ${column} = null`);
        await trx.raw(`alter table ${target} alter column ${column} set not null`);
      });
    },
  };
}
