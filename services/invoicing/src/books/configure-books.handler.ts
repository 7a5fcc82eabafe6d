import { invoicing } from '@bo/contracts';
import { formatDate } from '@bo/kernel';
import { handler, holdOrganizationSettingsExclusively, validationFailed, type OrganizationSettings } from '@bo/runtime';
import { decideBooksChange } from '../domain/books';

/**
 * Sets the books' accounting currency and lock date (docs/invoicing.md "The books' settings"). It
 * takes the organization's settings lock exclusive first: every posting holds it shared while it
 * judges its date and posts, so this waits for the postings under way and every posting after it
 * reads the new settings. Once this commits, and so before the organization profile answers, no
 * posting dated on or before the new lock date can commit.
 */
export const configureBooksHandler = handler(invoicing.configureBooks, async (req, ctx) => {
  await holdOrganizationSettingsExclusively(ctx.db, ctx.orgId);
  const row = await ctx.db<OrganizationSettings>('organization_settings').where({ org_id: ctx.orgId }).first();
  const posted = await ctx.db('journal_entries').where({ org_id: ctx.orgId }).first<{ id: number } | undefined>('id');
  const current = {
    accountingCurrency: row?.default_currency ?? null,
    lockDate: formatDate(row?.lock_date ?? null),
    posted: posted !== undefined,
  };
  const decision = decideBooksChange(current, { accountingCurrency: req.default_currency, lockDate: req.lock_date });
  if (decision.kind === 'refused') {
    throw validationFailed(decision.refusal.message, [{ field: decision.refusal.field, message: decision.refusal.message }]);
  }
  const { accountingCurrency, lockDate } = decision.books;
  if (decision.kind === 'changed') {
    // The profile's event fills the row's other settings whenever it arrives (its version decides them, not these).
    await ctx
      .db('organization_settings')
      .insert({ org_id: ctx.orgId, default_currency: accountingCurrency, lock_date: lockDate, version: 0 })
      .onConflict('org_id')
      .merge(['default_currency', 'lock_date']);
  }
  return { message: 'Books configured', books: { default_currency: accountingCurrency, lock_date: lockDate } };
});
