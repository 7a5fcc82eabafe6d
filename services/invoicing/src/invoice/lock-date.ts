import { formatDate } from '@bo/kernel';
import type { SettingsReading } from '@bo/billing';
import { lockDateRefusal } from '../domain/lock-date';
import { invoiceRefusals } from './invoice-refusals';

/**
 * Refuses (400 `validation_failed` on `field`, inside the caller's transaction, so nothing changes)
 * what would post on or before the organization's lock date, as this service's read model of the
 * profile has it. `settings` must be read held (readSettings with `hold`, or a posting's load
 * statement through `organization_settings_held`), before any other lock the posting takes: a lock
 * date arriving by its event waits for the postings under way to commit, and a posting after it sees
 * it, so in this service every posting is judged against the lock date either before or after its
 * arrival, never halfway.
 */
export function assertAfterLockDate(settings: SettingsReading, date: string, field: string, what: string): void {
  // A reading not held could miss a lock date committed meanwhile: that is a bug of the caller, never an answer to a client.
  if (!settings.held) throw new Error(`the lock date of ${what} was judged on settings read without their lock (readSettings with hold)`);
  const refusal = lockDateRefusal(formatDate(settings.row?.lock_date ?? null), date, field, what);
  if (refusal) throw invoiceRefusals.lockDatePassed(refusal);
}
