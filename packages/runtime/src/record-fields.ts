import { toNumber } from '@bo/kernel';
import { formatDateTime } from '@bo/kernel';

/**
 * How a record the API answers is read from a table's columns, written once and rendered two ways:
 * as a function mapping a row node-postgres read (recordMapper), and as SQL that makes PostgreSQL
 * write the record's JSON itself (recordJsonSql), for lists whose rows a service would otherwise
 * parse, map and serialize again. The two agree to the byte for every value the API takes
 * (record-fields.int.test.ts); only a numeric past the 15 significant digits a double holds would
 * be written with other digits, read as the same number.
 *
 * Each field names its column and how its value is written:
 * - `value`: as stored (text, integer, boolean, date as `YYYY-MM-DD`, null);
 * - `number`: a numeric, as a JSON number (node-postgres reads it as exact text);
 * - `datetime`: a timestamptz, as `YYYY-MM-DDTHH:MM:SS` in UTC (docs/design.md section 3).
 */
export type FieldKind = 'value' | 'number' | 'datetime';

type KindFor<V> = [V] extends [number | null] ? 'value' | 'number' : [V] extends [string | null] ? 'value' | 'datetime' : 'value';

/** Every field of record R, each with its column and kind (a kind its type allows). */
export type RecordFields<R> = { readonly [K in keyof R]-?: readonly [column: string, kind: KindFor<R[K]>] };

/** The function mapping a row (all the fields' columns) to the record, fields in their declared order. */
export function recordMapper<R>(fields: RecordFields<R>): (row: object) => R {
  const entries = fieldEntries(fields);
  return (row) => {
    const source = row as Record<string, unknown>;
    const record: Record<string, unknown> = {};
    for (const [name, column, kind] of entries) {
      const value = source[column] ?? null;
      record[name] =
        value === null || kind === 'value' ? value : kind === 'number' ? toNumber(value as string) : formatDateTime(value as Date);
    }
    return record as R;
  };
}

/**
 * The SQL expression writing a row's record as JSON text, compact and with the fields in their
 * declared order, as JSON.stringify writes the mapped record. `row` names the row's table or alias.
 * Built by concatenation: about half of what row_to_json over a select list costs PostgreSQL per
 * row (measured with `npm run bench`).
 */
export function recordJsonSql<R>(fields: RecordFields<R>, row: string): string {
  const parts = fieldEntries(fields).map(([name, column, kind], i) => {
    const key = `${i === 0 ? '{' : ','}${JSON.stringify(name)}:`;
    return `${quoteLiteral(key)} || coalesce(${valueJsonSql(`${quoteIdentifier(row)}.${quoteIdentifier(column)}`, kind)}, 'null')`;
  });
  return `${parts.join(' || ')} || '}'`;
}

/** The column a field reads (to filter or order by it in SQL). */
export function columnOf<R>(fields: RecordFields<R>, field: keyof R & string): string {
  return fields[field][0];
}

/** A value as JSON text; null stays null (the caller writes it). */
function valueJsonSql(column: string, kind: FieldKind): string {
  // trim_scale writes 100.00 as 100 and 0.50 as 0.5, as a JavaScript number prints.
  if (kind === 'number') return `trim_scale(${column})::text`;
  // A timestamp without zone is written in JSON as YYYY-MM-DDTHH:MM:SS (fractions dropped first),
  // whatever the session's DateStyle.
  if (kind === 'datetime') return `to_json(date_trunc('second', ${column} at time zone 'UTC'))::text`;
  return `to_json(${column})::text`;
}

function fieldEntries<R>(fields: RecordFields<R>): Array<[name: string, column: string, kind: FieldKind]> {
  return Object.entries(fields as Record<string, readonly [string, FieldKind]>).map(([name, [column, kind]]) => [name, column, kind]);
}

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
