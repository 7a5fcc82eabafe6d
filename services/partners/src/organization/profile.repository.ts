import type { Knex } from '@bo/runtime';
import type { ProfileRow } from './profile.record';

/** The organization's profile row (undefined before its first set). */
export async function findProfile(db: Knex, orgId: number): Promise<ProfileRow | undefined> {
  return db<ProfileRow>('organization_profiles').where({ org_id: orgId }).first();
}

/** Creates the organization's empty profile row at version 0 unless it has one. */
export async function ensureProfileRow(db: Knex, orgId: number): Promise<void> {
  await db('organization_profiles').insert({ org_id: orgId, version: 0 }).onConflict('org_id').ignore();
}

/** The books' settings as invoicing answered a configure, at the books' version they stand at. */
export interface BooksAnswer {
  default_currency: string | null;
  lock_date: string | null;
  books_version: number;
}

/**
 * Applies a set's changes to the profile, adding one to its version, and returns its new row. The
 * update locks the row: a concurrent set waits and then adds one to the version this one left.
 * The books' settings, when given, are stored only if their books' version is newer than the one the
 * profile holds, in the same statement: of two concurrent sets the profile keeps what invoicing's
 * books hold, whichever stores last.
 */
export async function updateProfile(
  db: Knex,
  orgId: number,
  changes: Partial<Record<keyof ProfileRow, unknown>>,
  updatedBy: string | null,
  books?: BooksAnswer,
): Promise<ProfileRow> {
  const booksColumns = books
    ? {
        default_currency: db.raw(`case when books_version < ? then ?::text else default_currency end`, [
          books.books_version,
          books.default_currency,
        ]),
        lock_date: db.raw(`case when books_version < ? then ?::date else lock_date end`, [books.books_version, books.lock_date]),
        books_version: db.raw('greatest(books_version, ?)', [books.books_version]),
      }
    : {};
  const [row] = (await db('organization_profiles')
    .where({ org_id: orgId })
    .update({ ...changes, ...booksColumns, version: db.raw('version + 1'), updated_by: updatedBy, updated_at: db.fn.now() })
    .returning('*')) as ProfileRow[];
  return row as ProfileRow;
}
