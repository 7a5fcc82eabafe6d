import { formatDate } from '@bo/kernel';
import type { Knex, OneStatementWrite } from '@bo/runtime';
import { SETTINGS_HELD_EXCLUSIVELY, type OrganizationSettings } from '@bo/billing';
import type { BooksSettings } from './decide-books';

/** The books as a change judges them: the accounting currency, the lock date, whether anything was posted, and their version. */
export async function loadBooks(
  db: Knex,
  orgId: number,
): Promise<{ accountingCurrency: string | null; lockDate: string | null; posted: boolean; version: number }> {
  const row = await db<OrganizationSettings & { books_version: string | number }>('organization_settings').where({ org_id: orgId }).first();
  const posted = await db('journal_entries').where({ org_id: orgId }).first<{ id: number } | undefined>('id');
  return {
    accountingCurrency: row?.default_currency ?? null,
    lockDate: formatDate(row?.lock_date ?? null),
    posted: posted !== undefined,
    version: Number(row?.books_version ?? 0),
  };
}

/**
 * The books' settings in the organization's settings row, adding one to their version, which it
 * answers; the profile's event fills the row's others whenever it arrives.
 */
export async function storeBooks(db: Knex, orgId: number, accountingCurrency: string | null, lockDate: string | null): Promise<number> {
  const [row] = await db('organization_settings')
    .insert({ org_id: orgId, default_currency: accountingCurrency, lock_date: lockDate, version: 0, books_version: 1 })
    .onConflict('org_id')
    .merge({
      default_currency: accountingCurrency,
      lock_date: lockDate,
      books_version: db.raw('organization_settings.books_version + 1'),
    })
    .returning<Array<{ books_version: string | number }>>('books_version');
  return Number(row?.books_version);
}

/** The books as a change decided on an unlocked read sees them (loadBooks' reading, in one statement). */
export interface BooksAsRead {
  accountingCurrency: string | null;
  lockDate: string | null;
  posted: boolean;
  /** The books' version as read: a change decided on them is stored only while they still stand at it. */
  version: number;
}

/** The organization's books read with no lock, in one statement; undefined while it has no settings row. */
export async function readBooksAsRead(db: Knex, orgId: number): Promise<BooksAsRead | undefined> {
  const { rows } = await db.raw<{
    rows: Array<{ default_currency: string | null; lock_date: string | null; books_version: string; posted: boolean }>;
  }>(
    `select s.default_currency, to_char(s.lock_date, 'YYYY-MM-DD') as lock_date, s.books_version::text as books_version,
            exists (select 1 from journal_entries e where e.org_id = s.org_id) as posted
       from organization_settings s where s.org_id = ?`,
    [orgId],
  );
  const row = rows[0];
  if (!row) return undefined;
  return { accountingCurrency: row.default_currency, lockDate: row.lock_date, posted: row.posted, version: Number(row.books_version) };
}

/**
 * storeBooks of books decided on a read (readBooksAsRead) as one statement (one-statement.ts): the
 * settings lock taken exclusive first (`store1`, which the write waits for), so the postings under
 * way finish and every later one reads the new settings; then the books written only while still at
 * the version read (none of them else), their new version filled in where the reply says
 * `books_version`.
 */
export function booksChangeAlone(
  orgId: number,
  books: BooksSettings,
  version: number,
): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  return {
    parts: [
      { sql: SETTINGS_HELD_EXCLUSIVELY, bindings: [orgId] },
      {
        sql: `update organization_settings set default_currency = ?::text, lock_date = ?::date, books_version = books_version + 1
               where org_id = ? and books_version = ?::bigint and exists (select 1 from store1)
               returning books_version`,
        bindings: [books.accountingCurrency, books.lockDate, orgId, version],
      },
    ],
    expects: '(select count(*) from store2) = 1',
    fills: [{ key: 'books_version', sql: '(select books_version::text from store2)' }],
  };
}

/** A configure that changes nothing as one statement: it answers the books only while they still stand at the version read. */
export function booksUnchangedAlone(orgId: number, version: number): Pick<OneStatementWrite, 'parts' | 'expects'> {
  return {
    parts: [
      {
        sql: 'select (select books_version from organization_settings where org_id = ?) = ?::bigint as unchanged',
        bindings: [orgId, version],
      },
    ],
    expects: 'coalesce((select unchanged from store1), false)',
  };
}
