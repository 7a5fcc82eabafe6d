import { formatDateTimeSql } from '@bo/kernel';
import type { Knex, OneStatementWrite } from '@bo/runtime';
import type { ProfileSet, StoredProfile } from './decide-profile-set';
import type { ProfileRow } from './profile.record';

/** The organization's profile row (undefined before its first set). */
export async function findProfile(db: Knex, orgId: number): Promise<ProfileRow | undefined> {
  return db<ProfileRow>('organization_profiles').where({ org_id: orgId }).first();
}

/** Creates the organization's empty profile row at version 0 unless it has one. */
export async function ensureProfileRow(db: Knex, orgId: number): Promise<void> {
  await db('organization_profiles').insert({ org_id: orgId, version: 0 }).onConflict('org_id').ignore();
}

/** The profile as a set decides on it, with its row version (`read`, its xmin); undefined before the first set. `lock` takes the row's lock. */
export async function readStoredProfile(
  db: Knex,
  orgId: number,
  opts: { lock?: boolean } = {},
): Promise<(StoredProfile & { read: string }) | undefined> {
  const { rows } = await db.raw<{ rows: Array<ProfileRow & { books_version: string | number; read_version: string }> }>(
    `select p.*, p.xmin::text as read_version from organization_profiles p where p.org_id = ?${opts.lock ? ' for update' : ''}`,
    [orgId],
  );
  const found = rows[0];
  if (!found) return undefined;
  const { books_version: booksVersion, read_version: read, ...row } = found;
  return { row, booksVersion: Number(booksVersion), read };
}

/**
 * A set's columns written as one statement, an upsert: the row updated only while it is the one read
 * (`read`), or, before the first set (`read` undefined), inserted unless a concurrent first set made
 * it; else nothing. As an insert, it meets what an insert of the row meets first (ensureProfileRow's
 * too), before any row lock. Its time is filled in where the reply and the event say `updated_at`.
 */
export function profileSetAlone(
  orgId: number,
  set: ProfileSet,
  read: string | undefined,
): Pick<OneStatementWrite, 'parts' | 'expects' | 'fills'> {
  const names = Object.keys(set.columns);
  const values = names.map((c) => (set.columns as Record<string, unknown>)[c] as Knex.RawBinding);
  return {
    parts: [
      {
        sql: `insert into organization_profiles as p (org_id, ${names.map((c) => `"${c}"`).join(', ')}, updated_at)
              values (?, ${names.map(() => '?').join(', ')}, now())
              on conflict (org_id) do update set ${names.map((c) => `"${c}" = excluded."${c}"`).join(', ')}, updated_at = now()
               where ${read === undefined ? 'false' : 'p.xmin::text = ?'}
              returning ${formatDateTimeSql('p.updated_at')} as updated_at`,
        bindings: [orgId, ...values, ...(read === undefined ? [] : [read])],
      },
    ],
    expects: '(select count(*) from store1) = 1',
    fills: [{ key: 'updated_at', sql: '(select to_json(updated_at)::text from store1)' }],
  };
}

/** A set's columns written to the locked row; answers the row as stored. */
export async function storeProfileSet(db: Knex, orgId: number, set: ProfileSet): Promise<ProfileRow> {
  const [row] = (await db('organization_profiles')
    .where({ org_id: orgId })
    .update({ ...set.columns, updated_at: db.fn.now() })
    .returning('*')) as ProfileRow[];
  return row as ProfileRow;
}
