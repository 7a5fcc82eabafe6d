import { formatDate } from '@bo/kernel';
import type { Knex } from '@bo/runtime';
import type { OrganizationSettings } from '@bo/billing';

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
