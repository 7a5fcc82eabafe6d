import type { Knex } from './db';
import { DEFAULT_PAGE_SIZE, type Pagination } from '@bo/contracts';
import { JsonText } from './json-text';
import { columnOf, quoteIdentifier, recordJsonSql, type RecordFields } from './record-fields';
import { positionalText, runStatement } from './statement';
import { RECORD_JSON_COLUMN } from './stored-record';

export interface PageRequest {
  page_number?: number;
  page_size?: number;
}

export function pageWindow(req: PageRequest): { page: number; size: number; offset: number } {
  const page = req.page_number ?? 1;
  const size = req.page_size ?? DEFAULT_PAGE_SIZE;
  return { page, size, offset: (page - 1) * size };
}

export function paginationOf(req: PageRequest, totalItems: number): Pagination {
  const { page, size } = pageWindow(req);
  const totalPages = Math.ceil(totalItems / size);
  return {
    page_number: page,
    page_size: size,
    total_items: totalItems,
    total_pages: totalPages,
    has_next: page < totalPages,
    has_previous: page > 1,
  };
}

/** Escapes `%`, `_` and `\` so user text matches literally inside a LIKE pattern (ESCAPE '\'). */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * One page of a filtered query and the total it pages through, in one statement (one snapshot and
 * one round trip, with no transaction around it): the total is a scalar subquery counting the same
 * filter without the page's columns, which PostgreSQL runs once (an InitPlan). Not `count(*) over
 * ()`, which makes the page read and sort every matching row in full (docs/performance.md, "Why the
 * code is shaped so"). Only a page past the end needs a second, counting query. `rows` is the filtered query with the page's columns selected; `order` orders it,
 * its last key making the order total (the id). The rows keep the `total_count` column (copying
 * every row to drop it costs a list a share of its service's CPU): map them to records, never spread
 * them into a reply.
 */
export async function selectPage<Row>(
  rows: Knex.QueryBuilder,
  req: PageRequest,
  order: (page: Knex.QueryBuilder) => unknown,
): Promise<{ rows: Array<Row & PageCount>; total: number }> {
  const { size, offset } = pageWindow(req);
  const counting = () => rows.clone().clearSelect().clearOrder();
  const page = (await rows.clone().select(counting().count('*').as('total_count')).modify(order).limit(size).offset(offset)) as Array<
    Row & PageCount
  >;
  if (page.length > 0) return { rows: page, total: Number(page[0]?.total_count) };
  if (offset === 0) return { rows: [], total: 0 };
  const [counted] = await counting().count<Array<{ count: number }>>({ count: '*' });
  return { rows: [], total: Number(counted?.count ?? 0) };
}

/** The column `selectPage` adds to each row: how many rows the whole filtered query has. */
export interface PageCount {
  total_count: number;
}

/** What selectRecordPage pages through: rows of one table matching a fixed filter text. */
export interface RecordPageQuery<R> {
  table: string;
  /** The filter, a fixed text with `?` for each of `bindings` (never the client's text itself). */
  where: string;
  bindings: readonly Knex.RawBinding[];
  fields: RecordFields<R>;
  /** Fields the page is ordered by; the last must make the order total (the id). */
  orderBy: ReadonlyArray<{ field: keyof R & string; order: 'asc' | 'desc' }>;
  /**
   * The table keeps each row's record, written by PostgreSQL when the row was (storedRecordMigration
   * with these fields): the page reads them instead of writing them.
   */
  stored?: boolean;
}

/**
 * One page of records as the JSON text PostgreSQL writes for them (recordJsonSql), and the total
 * it pages through, in one statement and one fixed text per filter shape, written once per process
 * (so it is prepared once per connection, and neither a query builder nor knex's formatter runs
 * per call: runStatement). The service splices the text into its reply
 * (JsonText) without reading the rows, the cheapest list this runtime serves (docs/performance.md,
 * "Why the code is shaped so"). A page past the end is `[]`
 * (the text of an empty page, always) with the total still counted; the total is a scalar
 * subquery, as in selectPage.
 */
export async function selectRecordPage<R>(
  db: Knex,
  query: RecordPageQuery<R>,
  req: PageRequest,
): Promise<{ records: JsonText<R[]>; total: number }> {
  const { size, offset } = pageWindow(req);
  const rows = await runStatement<{ total: number; records: string }>(db, recordPageText(db, query), [
    ...query.bindings,
    ...query.bindings,
    size,
    offset,
  ]);
  // The statement always answers one row: its two columns are scalar subqueries.
  const row = rows[0] as { total: number; records: string };
  return { records: new JsonText<R[]>(row.records), total: Number(row.total) };
}

/** Each fields table's statement texts, by table, filter and order: written and numbered once each. */
const recordPageTexts = new WeakMap<object, Map<string, string>>();
/** The most texts kept per fields table: a caller whose filter text varied without bound would only lose the cache. */
const MAX_TEXTS = 64;

function recordPageText<R>(db: Knex, query: RecordPageQuery<R>): string {
  let texts = recordPageTexts.get(query.fields);
  if (texts === undefined) {
    texts = new Map();
    recordPageTexts.set(query.fields, texts);
  }
  const orderKey = query.orderBy.map((o) => `${o.field} ${o.order}`).join(',');
  const key = `${query.table}\n${query.where}\n${orderKey}\n${query.stored === true}`;
  let text = texts.get(key);
  if (text === undefined) {
    const table = quoteIdentifier(query.table);
    const orderOf = (row: string) =>
      query.orderBy.map((o) => `${row}${quoteIdentifier(columnOf(query.fields, o.field))} ${o.order}`).join(', ');
    const record = query.stored ? `r.${quoteIdentifier(RECORD_JSON_COLUMN)}` : recordJsonSql(query.fields, 'r');
    // The page's rows are picked in order, and their records joined in the same order.
    text = positionalText(
      db,
      `select (select count(*) from ${table} where ${query.where}) as total, ` +
        `(select '[' || coalesce(string_agg(${record}, ',' order by ${orderOf('r.')}), '') || ']' ` +
        `from (select * from ${table} where ${query.where} order by ${orderOf('')} limit ? offset ?) r) as records`,
    );
    if (texts.size < MAX_TEXTS) texts.set(key, text);
  }
  return text;
}
