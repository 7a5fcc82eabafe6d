import { z } from 'zod';
import { baseRequest, dateField } from '../fields';
import { defineOperation } from '../operation';
import { clearable, currencyField } from '../organization/schemas';

/**
 * The books' settings, owned by invoicing, which keeps the journal (docs/invoicing.md "The books'
 * settings"): the accounting currency the journal posts in and the lock date up to which it is
 * closed. Partners' organization profile sets them through this operation before it stores the rest
 * of the profile, so a change the client saw acknowledged already holds for every posting.
 */
export const configureBooksRequest = z.object({
  ...baseRequest,
  /** The accounting currency; absent keeps it, null clears it. Fixed once the first journal entry posts. */
  default_currency: clearable(currencyField),
  /** The last day of closed books; absent keeps it, null clears it. */
  lock_date: clearable(dateField),
});
export type ConfigureBooksRequest = z.infer<typeof configureBooksRequest>;

export const booksSettings = z.object({
  /** ISO 4217; null while the organization has none (its journal then posts documents as they are). */
  default_currency: z.string().nullable(),
  /** `YYYY-MM-DD`; null while the books are open. */
  lock_date: z.string().nullable(),
});
export type BooksSettings = z.infer<typeof booksSettings>;

export const configureBooksReply = z.object({
  message: z.string(),
  /** The books' settings as they stand once this configure committed. */
  books: booksSettings,
  /** The books' version those settings stand at: one more for each change, so of two answers the higher is the newer. */
  books_version: z.number().int().nonnegative(),
});

/** Internal (not routed over HTTP): sets the books' settings the request names; asked by partners' `/organization/setprofile`. */
export const configureBooks = defineOperation({
  name: 'invoicing.books.configure',
  service: 'invoicing',
  summary: "Internal: set the books' accounting currency and lock date, asked by the organization profile before it stores them",
  paths: [],
  select: { default: true },
  write: true,
  request: configureBooksRequest,
  reply: configureBooksReply,
  rules: [{ field: 'default_currency', rule: 'unchanged once the first journal entry has posted' }],
});

export const booksOperations = [configureBooks];
