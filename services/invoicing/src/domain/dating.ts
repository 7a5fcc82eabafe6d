import type { Refusal } from './cash';

/** Something an operation reverses or settles, with the day it took effect (`YYYY-MM-DD`). */
export interface Dated {
  label: string;
  date: string;
}

/**
 * Dates run forward (docs/invoicing.md "One ledger"): a void, refund, allocation or write-off is never
 * dated before what it reverses or settles, so no view of the books ever shows a settlement of
 * something that did not exist yet that day. Refuses `date` (the request's `field`) when it is before
 * the latest of `earlier`; dates are `YYYY-MM-DD` and compare as text.
 */
export function datedBeforeRefusal(field: string, date: string, what: string, earlier: ReadonlyArray<Dated>): Refusal | null {
  const latest = earlier.reduce<Dated | undefined>((a, b) => (a === undefined || b.date > a.date ? b : a), undefined);
  if (latest === undefined || date >= latest.date) return null;
  return {
    code: 'validation_failed',
    field,
    message: `${what} dated ${date} would come before ${latest.label}, dated ${latest.date}: date it on or after ${latest.date}`,
  };
}
