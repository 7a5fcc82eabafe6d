import { formatDate } from '@bo/kernel';
import { validationFailed, type Knex } from '@bo/runtime';
import { organizationSettings, organizationToday } from '@bo/billing';
import { lockDateRefusal } from '../domain/lock-date';

/**
 * Refuses (400 `validation_failed` on `field`, inside the caller's transaction, so nothing changes)
 * what would post on or before the organization's lock date, as this service's read model of the
 * profile has it. The row is read held (under the organization's settings lock, shared): a lock date
 * arriving by its event waits for the postings under way to commit, and a posting after it sees it,
 * so in this service every posting is judged against the lock date either before or after its
 * arrival, never halfway.
 */
export async function assertAfterLockDate(db: Knex, orgId: number, date: string, field: string, what: string): Promise<void> {
  const row = await organizationSettings(db, orgId, { hold: true });
  const refusal = lockDateRefusal(formatDate(row?.lock_date ?? null), date, field, what);
  if (refusal) throw validationFailed(refusal.message, [{ field: refusal.field, message: refusal.message }]);
}

/**
 * The organization's today for a posting: the settings row read held first, so the lock-date
 * check that follows (assertAfterLockDate) and every other setting the posting reads in its
 * transaction come from that one reading.
 */
export async function postingToday(db: Knex, orgId: number): Promise<string> {
  await organizationSettings(db, orgId, { hold: true });
  return organizationToday(db, orgId);
}
