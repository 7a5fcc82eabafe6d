import type { Refusal } from './cash';

/**
 * Closed books (docs/invoicing.md "Lock date"): nothing is posted on or before the organization's
 * lock date. `field` is the request's date field, or `lock_date` where the date is not the
 * request's (a validation posts on the invoice's own date). Dates are `YYYY-MM-DD`, so they compare
 * as text.
 */
export function lockDateRefusal(lockDate: string | null, date: string, field: string, what: string): Refusal | null {
  if (lockDate === null || date > lockDate) return null;
  return {
    code: 'validation_failed',
    field,
    message: `the books are locked up to ${lockDate}: ${what} dated ${date} cannot be posted; date it after ${lockDate} (a correction of the closed period is a new document dated after it)`,
  };
}
