import { invoicing, organization } from '@bo/contracts';
import { filledIn, handler, recordEvent, statementEvent, unlessRefused } from '@bo/runtime';
import { booksChange, decideProfileSet, profileChanges, refuseCashRounding, roundingAfter, type BooksAnswer } from './decide-profile-set';
import { toProfileRecord, toProfileSummary } from './profile.record';
import { ensureProfileRow, profileSetAlone, readStoredProfile, storeProfileSet } from './profile.repository';

const MESSAGE = 'Organization profile updated successfully';

/**
 * Sets the fields given (null or "" clears one) and announces the whole profile, without the logo's
 * bytes, as `partners.organization.updated`. Each set adds one to the version, and none is lost.
 *
 * The books' settings among them (`default_currency`, the accounting currency, and `lock_date`)
 * belong to invoicing, which keeps the journal: they are set there first (`invoicing.books.configure`,
 * with no transaction open here), and the profile stores them only once invoicing has, so a change
 * this answers already holds for every posting. Invoicing answers the books as they then stand with
 * their version; the profile keeps that answer only if its version is newer than the one it holds
 * (decideProfileSet), so two concurrent sets whose configures and stores interleave leave the profile
 * saying what the books say. Invoicing's refusal is the answer, and nothing changes; so is a refusal
 * of the profile's own, judged before invoicing is asked.
 *
 * Load → decide → store, optimistic as a rule: the profile read with no lock, the set decided, and
 * stored as one statement only while the row is the one read (`alone`); a set meanwhile, or a
 * refusal, goes the locked way (`apply`), which judges it on the row as it then stands (a currency
 * change can break the cash rounding set before it).
 */
export const setProfileHandler = handler(organization.setProfile, {
  gather: async (req, ctx): Promise<{ books?: BooksAnswer }> => {
    const books = booksChange(req);
    if (!books) return {};
    // An organization that never set its profile has no row: its settings read as nulls.
    refuseCashRounding(roundingAfter((await readStoredProfile(ctx.db, ctx.orgId))?.row, profileChanges(req)));
    const configured = await ctx.call(invoicing.configureBooks, books, { what: "the organization's books" });
    return { books: { ...configured.books, books_version: configured.books_version } };
  },
  alone: async (req, ctx, facts) => {
    const stored = await readStoredProfile(ctx.db, ctx.orgId);
    const set = unlessRefused(() => decideProfileSet(ctx.orgId, stored, req, facts.books, req.userid ?? ctx.userId ?? null));
    if (!set) return undefined;
    // The row's time is the statement's: filled in from it.
    const summary = { ...toProfileSummary(ctx.orgId, set.row), updated_at: filledIn<string>() };
    return {
      ...profileSetAlone(ctx.orgId, set, stored?.read),
      events: [statementEvent(organization.organizationUpdated, ctx.orgId, summary)],
      reply: { message: MESSAGE, organization: { ...toProfileRecord(ctx.orgId, set.row), updated_at: filledIn<string>() } },
    };
  },
  apply: async (req, ctx, facts) => {
    await ensureProfileRow(ctx.db, ctx.orgId);
    // The row locked: a concurrent set waits, then decides on what this one left.
    const stored = await readStoredProfile(ctx.db, ctx.orgId, { lock: true });
    const set = decideProfileSet(ctx.orgId, stored, req, facts.books, req.userid ?? ctx.userId ?? null);
    const row = await storeProfileSet(ctx.db, ctx.orgId, set);
    await recordEvent(ctx.db, organization.organizationUpdated, ctx.orgId, toProfileSummary(ctx.orgId, row));
    return { message: MESSAGE, organization: toProfileRecord(ctx.orgId, row) };
  },
});
