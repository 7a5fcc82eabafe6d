import type { Refusal } from './cash';

/** The books' settings as invoicing keeps them (docs/invoicing.md "The books' settings"). */
export interface Books {
  /** The accounting currency the journal posts in; null while none is set. */
  accountingCurrency: string | null;
  /** The last day of closed books (`YYYY-MM-DD`); null while the books are open. */
  lockDate: string | null;
  /** Whether any journal entry of the organization has posted. */
  posted: boolean;
}

/** A change asked of the books: a field absent (undefined) keeps its value, null clears it. */
export interface BooksChange {
  accountingCurrency?: string | null;
  lockDate?: string | null;
}

export type BooksDecision =
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'unchanged'; books: Omit<Books, 'posted'> }
  | { kind: 'changed'; books: Omit<Books, 'posted'> };

/**
 * Decides a change of the books' settings. The accounting currency is fixed once the first journal
 * entry has posted: every posted amount is in it, so another one (or none) would mix currencies in
 * one journal; asking for the same one again is no change. The lock date moves freely, forward to
 * close a period or back (or cleared) to reopen days.
 */
export function decideBooksChange(current: Books, change: BooksChange): BooksDecision {
  const next = {
    accountingCurrency: change.accountingCurrency === undefined ? current.accountingCurrency : change.accountingCurrency,
    lockDate: change.lockDate === undefined ? current.lockDate : change.lockDate,
  };
  if (current.posted && next.accountingCurrency !== current.accountingCurrency) {
    const message = `default_currency is fixed once the books have posted: the journal is kept in ${current.accountingCurrency ?? "the documents' own currencies"}, which stays the accounting currency`;
    return { kind: 'refused', refusal: { code: 'validation_failed', field: 'default_currency', message } };
  }
  const same = next.accountingCurrency === current.accountingCurrency && next.lockDate === current.lockDate;
  return { kind: same ? 'unchanged' : 'changed', books: next };
}
