import { invoicing } from '@bo/contracts';
import { filledIn, handler, unlessRefused } from '@bo/runtime';
import { holdOrganizationSettingsExclusively } from '@bo/billing';
import { booksChangeAlone, booksUnchangedAlone, loadBooks, readBooksAsRead, storeBooks } from './book.repository';
import { booksReply, decideBooksConfiguration } from './decide-books';

/**
 * Sets the books' accounting currency and lock date (docs/invoicing.md "The books' settings"). It
 * takes the organization's settings lock exclusive first: every posting holds it shared while it
 * judges its date and posts, so this waits for the postings under way and every posting after it
 * reads the new settings. Once this commits, and so before the organization profile answers, no
 * posting dated on or before the new lock date can commit. It answers the books' settings as they
 * now stand with their version (one more for each change), so the profile, which stores them after
 * this commits, keeps only the newest answer of concurrent sets.
 *
 * Load → decide (decideBooksConfiguration) → store, optimistic as a rule: the books read with no lock
 * (one statement), and a change of the lock date stored as one statement that takes the settings lock
 * exclusive before it writes, and writes only while the books are still at the version read, its new
 * version filled in (`alone`); no change answers the books only while they are still so. A change of
 * the accounting currency, allowed only while nothing has posted, is decided under the lock (`apply`):
 * a statement's snapshot is older than the lock it waits for, so it could miss an entry posted
 * meanwhile. So is a refusal, books changed meanwhile, or an organization with no settings row yet.
 */
export const configureBooksHandler = handler(invoicing.configureBooks, {
  alone: async (req, ctx) => {
    const read = await readBooksAsRead(ctx.db, ctx.orgId);
    const configuration = read && unlessRefused(() => decideBooksConfiguration(read, req));
    if (!read || !configuration || configuration.currencyChanged) return undefined;
    if (!configuration.changed)
      return { ...booksUnchangedAlone(ctx.orgId, read.version), events: [], reply: booksReply(configuration.books, read.version) };
    return {
      ...booksChangeAlone(ctx.orgId, configuration.books, read.version),
      events: [],
      reply: booksReply(configuration.books, filledIn<number>()),
    };
  },
  apply: async (req, ctx) => {
    await holdOrganizationSettingsExclusively(ctx.db, ctx.orgId);
    const current = await loadBooks(ctx.db, ctx.orgId);
    const { books, changed } = decideBooksConfiguration(current, req);
    // The profile's event fills the row's other settings whenever it arrives (its version decides them, not these).
    // Read and written under the exclusive lock, so the version answered is the one these settings stand at.
    const version = changed ? await storeBooks(ctx.db, ctx.orgId, books.accountingCurrency, books.lockDate) : current.version;
    return booksReply(books, version);
  },
});
