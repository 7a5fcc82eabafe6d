import { createHash } from 'node:crypto';
import { invoicing, organization, type RequestOf } from '@bo/contracts';
import { dec, documentMinorUnit, toNumber } from '@bo/kernel';
import { handler, recordEvent } from '@bo/runtime';
import { profileRefusals } from './profile-refusals';
import { SET_FIELDS, toProfileRecord, toProfileSummary, type ProfileRow } from './profile.record';
import { ensureProfileRow, findProfile, updateProfile, type BooksAnswer } from './profile.repository';

/**
 * Sets the fields given (null or "" clears one) and announces the whole profile, without the logo's
 * bytes, as `partners.organization.updated`. The row is created on the first set and locked for the
 * update, so concurrent sets each add one to the version and none is lost.
 *
 * The books' settings among them (`default_currency`, the accounting currency, and `lock_date`)
 * belong to invoicing, which keeps the journal: they are set there first (`invoicing.books.configure`,
 * with no transaction open here), and the profile stores them only once invoicing has, so a change
 * this answers already holds for every posting. Invoicing answers the books as they then stand with
 * their version; the profile stores that answer only if its version is newer than the one it holds,
 * so two concurrent sets whose configures and stores interleave leave the profile saying what the
 * books say. Invoicing's refusal is the answer, and nothing changes; so is a refusal of the
 * profile's own, judged before invoicing is asked.
 */
export const setProfileHandler = handler(organization.setProfile, {
  gather: async (req, ctx): Promise<{ books?: BooksAnswer }> => {
    const books = booksChange(req);
    if (!books) return {};
    // An organization that never set its profile has no row: its settings read as nulls.
    const current = await findProfile(ctx.db, ctx.orgId);
    refuseCashRounding(roundingAfter(current, profileChanges(req)));
    const configured = await ctx.call(invoicing.configureBooks, books, { what: "the organization's books" });
    return { books: { ...configured.books, books_version: configured.books_version } };
  },
  apply: async (req, ctx, facts: { books?: BooksAnswer }) => {
    const { default_currency: _currency, lock_date: _lockDate, ...changes } = profileChanges(req);
    await ensureProfileRow(ctx.db, ctx.orgId);
    // The update locks the row; a concurrent set waits and then adds one to the version it left.
    const row = await updateProfile(ctx.db, ctx.orgId, changes, req.userid ?? ctx.userId ?? null, facts.books);
    // Judged on the profile as it now stands: a currency change can break the cash rounding set before it.
    refuseCashRounding(row);
    await recordEvent(ctx.db, organization.organizationUpdated, ctx.orgId, toProfileSummary(ctx.orgId, row));
    return { message: 'Organization profile updated successfully', organization: toProfileRecord(ctx.orgId, row) };
  },
});

type SetProfileRequest = RequestOf<typeof organization.setProfile>;

/** The columns a set writes: the fields given, the logo as its bytes and their digest. */
function profileChanges(req: SetProfileRequest): Partial<Record<keyof ProfileRow, unknown>> {
  const changes: Partial<Record<keyof ProfileRow, unknown>> = {};
  for (const field of SET_FIELDS) if (req[field] !== undefined) changes[field] = req[field];
  if (req.logo_png !== undefined) {
    const bytes = req.logo_png === null ? null : Buffer.from(req.logo_png, 'base64');
    changes.logo_png = bytes;
    changes.logo_sha256 = bytes ? createHash('sha256').update(bytes).digest('hex') : null;
  }
  return changes;
}

/** The books' settings the request changes, for invoicing; undefined when it names neither. */
function booksChange(req: SetProfileRequest): { default_currency?: string | null; lock_date?: string | null } | undefined {
  if (req.default_currency === undefined && req.lock_date === undefined) return undefined;
  return {
    ...(req.default_currency === undefined ? {} : { default_currency: req.default_currency }),
    ...(req.lock_date === undefined ? {} : { lock_date: req.lock_date }),
  };
}

/** The two settings the cash rounding is judged on: a stored numeric reads as text, a requested one as a number. */
interface RoundingSettings {
  cash_rounding: string | number | null;
  default_currency: string | null;
}

/** The rounding settings once `changes` apply to the stored profile, or to none (all nulls). */
function roundingAfter(current: ProfileRow | undefined, changes: Partial<Record<keyof ProfileRow, unknown>>): RoundingSettings {
  const after = (field: keyof RoundingSettings) => (changes[field] !== undefined ? changes[field] : current?.[field]) ?? null;
  return { cash_rounding: after('cash_rounding') as string | number | null, default_currency: after('default_currency') as string | null };
}

function refuseCashRounding(row: RoundingSettings): void {
  const problem = cashRoundingProblem(row);
  if (problem) throw profileRefusals.cashRoundingTooFine(problem);
}

/** A cash rounding finer than its currency's smallest amount (0.001 in EUR, 0.5 in JPY); null when fine. */
function cashRoundingProblem(row: RoundingSettings): string | null {
  if (row.cash_rounding == null) return null;
  const places = documentMinorUnit(row.default_currency);
  if (places === undefined) return null;
  // The kernel's rule for a document's cash rounding (decideDocumentTaxes), applied to the profile.
  if (dec(row.cash_rounding).decimalPlaces() <= places) return null;
  return `cash_rounding ${toNumber(row.cash_rounding)} is no multiple of ${row.default_currency ?? 'the currency'}'s smallest amount (${places} decimals)`;
}
