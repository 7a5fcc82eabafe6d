import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { holdOrganizationSettingsExclusively } from '@bo/billing';
import { decideBooksChange } from '../domain/books';
import { bookRefusals } from './book-refusals';
import { loadBooks, storeBooks } from './book.repository';

/**
 * Sets the books' accounting currency and lock date (docs/invoicing.md "The books' settings"). It
 * takes the organization's settings lock exclusive first: every posting holds it shared while it
 * judges its date and posts, so this waits for the postings under way and every posting after it
 * reads the new settings. Once this commits, and so before the organization profile answers, no
 * posting dated on or before the new lock date can commit. It answers the books' settings as they
 * now stand with their version (one more for each change), so the profile, which stores them after
 * this commits, keeps only the newest answer of concurrent sets.
 */
export const configureBooksHandler = handler(invoicing.configureBooks, async (req, ctx) => {
  await holdOrganizationSettingsExclusively(ctx.db, ctx.orgId);
  const current = await loadBooks(ctx.db, ctx.orgId);
  const decision = decideBooksChange(current, { accountingCurrency: req.default_currency, lockDate: req.lock_date });
  if (decision.kind === 'refused') throw bookRefusals.booksChangeRefused(decision.refusal);
  const { accountingCurrency, lockDate } = decision.books;
  // The profile's event fills the row's other settings whenever it arrives (its version decides them, not these).
  // Read and written under the exclusive lock, so the version answered is the one these settings stand at.
  const version = decision.kind === 'changed' ? await storeBooks(ctx.db, ctx.orgId, accountingCurrency, lockDate) : current.version;
  return { message: 'Books configured', books: { default_currency: accountingCurrency, lock_date: lockDate }, books_version: version };
});
