import type { ReplyOf, invoicing } from '@bo/contracts';
import { decideBooksChange, type Books } from '../domain/books';
import { bookRefusals } from './book-refusals';

/** The books' settings a configure leaves (the accounting currency and the lock date). */
export type BooksSettings = Omit<Books, 'posted'>;

/** What a configure decides on the books as read or held: what they become, and whether that is a change, and of the currency. */
export interface BooksConfiguration {
  books: BooksSettings;
  /** false: the books stay as they are (their version too). */
  changed: boolean;
  /** Whether the accounting currency changes, which is allowed only while nothing has posted. */
  currencyChanged: boolean;
}

/**
 * A configure of the books (decideBooksChange) on the books as read: a field absent keeps its value,
 * null clears it; the accounting currency is fixed once anything has posted (refused on
 * default_currency), the lock date moves freely.
 */
export function decideBooksConfiguration(
  current: Books,
  req: { default_currency?: string | null | undefined; lock_date?: string | null | undefined },
): BooksConfiguration {
  const decision = decideBooksChange(current, { accountingCurrency: req.default_currency, lockDate: req.lock_date });
  if (decision.kind === 'refused') throw bookRefusals.booksChangeRefused(decision.refusal);
  return {
    books: decision.books,
    changed: decision.kind === 'changed',
    currencyChanged: decision.books.accountingCurrency !== current.accountingCurrency,
  };
}

/** The reply: the books' settings as they now stand, with the version they stand at. */
export function booksReply(books: BooksSettings, version: number): ReplyOf<typeof invoicing.configureBooks> {
  return {
    message: 'Books configured',
    books: { default_currency: books.accountingCurrency, lock_date: books.lockDate },
    books_version: version,
  };
}
