import { invoicing, type FieldError } from '@bo/contracts';
import { runDate } from '../domain/recurrence';

/**
 * What is wrong with a report's period (both ends inclusive, the organization's local dates), named
 * by field: a start after its end, or more than `MAX_REPORT_YEARS` years (the end on or after the
 * same day that many years on; a 29 February start counts to 28 February).
 */
export function periodProblem(dateFrom: string, dateTo: string): FieldError | undefined {
  if (dateFrom > dateTo) return { field: 'date_from', message: 'date_from must not be after date_to' };
  const limit = runDate(dateFrom, 'yearly', invoicing.MAX_REPORT_YEARS);
  // A limit past year 9999 (five digits) is past every date there is.
  if (limit.length === 10 && dateTo >= limit)
    return { field: 'date_to', message: `date_to must be less than ${invoicing.MAX_REPORT_YEARS} years after date_from (before ${limit})` };
  return undefined;
}
