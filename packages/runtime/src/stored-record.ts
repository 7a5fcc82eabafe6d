import { createHash } from 'node:crypto';
import { withLockTimeout, type Migration } from './db';
import { quoteIdentifier, rowRecordJsonSql, type RecordFields } from './record-fields';

/** The column of a table that keeps each row's record as JSON text (storedRecordMigration). */
export const RECORD_JSON_COLUMN = 'record_json';

/**
 * to_json, declared immutable so a generated column may call it. PostgreSQL marks to_json stable
 * because some types' JSON follows session settings (a timestamptz follows TimeZone); a record's
 * fields never reach it with one: text, numbers, booleans and dates are written the same in every
 * session, and a `datetime` field is turned into a UTC timestamp without zone first.
 */
const JSON_OF = 'record_json_value';

/**
 * A migration that gives `table` a column keeping each row's record as the JSON text a list answers
 * (recordJsonSql's, to the byte), generated and stored by PostgreSQL whenever the row is written, so
 * a list reads its records instead of writing them on every request (selectRecordPage `stored`):
 * writing a 25-partner page's records was half of what PostgreSQL spent on a list
 * (docs/performance.md, eleventh pass). Being generated, it cannot be left behind by any write.
 *
 * Its name carries a digest of the expression, so the migration is repeatable: when the record's
 * fields change, the name changes, and the next start-up drops the column and adds it again with
 * the new expression (one rewrite of the table under its ACCESS EXCLUSIVE lock). Keep it last in the
 * service's migrations; a later migration that drops or retypes a column the record reads must drop
 * this column first, since PostgreSQL refuses to drop a column a generated one depends on.
 */
export function storedRecordMigration<R>(table: string, fields: RecordFields<R>): Migration {
  const digest = createHash('sha256')
    .update(`${table}\n${rowRecordJsonSql(fields, JSON_OF)}`)
    .digest('hex')
    .slice(0, 12);
  return {
    name: `${RECORD_JSON_COLUMN}_${table}_${digest}`,
    async up(trx, schema) {
      const expression = rowRecordJsonSql(fields, `${quoteIdentifier(schema)}.${quoteIdentifier(JSON_OF)}`);
      // knex numbers every `?` of a statement as a placeholder, even inside a literal.
      if (expression.includes('?')) throw new Error(`the record of ${table} names a field or column with a '?'`);
      const target = `${quoteIdentifier(schema)}.${quoteIdentifier(table)}`;
      await trx.raw(
        `create or replace function ${quoteIdentifier(schema)}.${quoteIdentifier(JSON_OF)}(value anyelement) returns json ` +
          `language sql immutable parallel safe as 'select to_json(value)'`,
      );
      await withLockTimeout(trx, async () => {
        await trx.raw(`alter table ${target} drop column if exists ${quoteIdentifier(RECORD_JSON_COLUMN)}`);
        await trx.raw(
          `alter table ${target} add column ${quoteIdentifier(RECORD_JSON_COLUMN)} text generated always as (${expression}) stored`,
        );
      });
    },
  };
}
