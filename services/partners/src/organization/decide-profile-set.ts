import { createHash } from 'node:crypto';
import type { organization, RequestOf } from '@bo/contracts';
import { dec, documentMinorUnit, toNumber } from '@bo/kernel';
import { profileRefusals } from './profile-refusals';
import { PROFILE_COLUMNS, SET_FIELDS, type ProfileRow } from './profile.record';

type SetProfileRequest = RequestOf<typeof organization.setProfile>;

/** The books' settings as invoicing answered a configure, at the books' version they stand at. */
export interface BooksAnswer {
  default_currency: string | null;
  lock_date: string | null;
  books_version: number;
}

/** The profile as a set decides on it: its row (none before the first set) and the books' version it holds. */
export interface StoredProfile {
  row: ProfileRow;
  booksVersion: number;
}

/** A set, decided: the columns it writes and the profile as it leaves it (its time aside, which is the store's). */
export interface ProfileSet {
  columns: Partial<Record<keyof ProfileRow | 'books_version', unknown>>;
  row: ProfileRow;
}

/** The columns a set writes: the fields given, the logo as its bytes and their digest. */
export function profileChanges(req: SetProfileRequest): Partial<Record<keyof ProfileRow, unknown>> {
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
export function booksChange(req: SetProfileRequest): { default_currency?: string | null; lock_date?: string | null } | undefined {
  if (req.default_currency === undefined && req.lock_date === undefined) return undefined;
  return {
    ...(req.default_currency === undefined ? {} : { default_currency: req.default_currency }),
    ...(req.lock_date === undefined ? {} : { lock_date: req.lock_date }),
  };
}

/**
 * A set, decided on the profile as stored: the fields given (null or "" clears one) and, when
 * invoicing answered a change of the books, its currency and lock date, kept only when the books'
 * version answered is newer than the one the profile holds (of two concurrent sets, the profile keeps
 * what the books hold, whichever stores last). One more version; refused when the cash rounding, as
 * the profile then stands, is finer than its currency's smallest amount.
 */
export function decideProfileSet(
  orgId: number,
  stored: StoredProfile | undefined,
  req: SetProfileRequest,
  books: BooksAnswer | undefined,
  updatedBy: string | null,
): ProfileSet {
  const { default_currency: _currency, lock_date: _lockDate, ...changes } = profileChanges(req);
  const current = stored?.row ?? emptyProfile(orgId);
  const heldBooks = stored?.booksVersion ?? 0;
  const newerBooks = books !== undefined && books.books_version > heldBooks;
  const booksColumns = newerBooks ? { default_currency: books.default_currency, lock_date: books.lock_date } : {};
  const columns = {
    ...changes,
    ...booksColumns,
    ...(books ? { books_version: Math.max(heldBooks, books.books_version) } : {}),
    version: current.version + 1,
    updated_by: updatedBy,
  };
  const { books_version: _books, ...rowColumns } = columns;
  const row = { ...current, ...rowColumns } as ProfileRow;
  refuseCashRounding(row);
  return { columns, row };
}

/** The profile of an organization that never set one: every column null, at version 0 (its time is the store's). */
function emptyProfile(orgId: number): ProfileRow {
  return { ...Object.fromEntries(PROFILE_COLUMNS.map((c) => [c, null])), org_id: orgId, version: 0 } as unknown as ProfileRow;
}

/** The two settings the cash rounding is judged on: a stored numeric reads as text, a requested one as a number. */
interface RoundingSettings {
  cash_rounding: string | number | null;
  default_currency: string | null;
}

/** The rounding settings once `changes` apply to the stored profile, or to none (all nulls). */
export function roundingAfter(current: ProfileRow | undefined, changes: Partial<Record<keyof ProfileRow, unknown>>): RoundingSettings {
  const after = (field: keyof RoundingSettings) => (changes[field] !== undefined ? changes[field] : current?.[field]) ?? null;
  return { cash_rounding: after('cash_rounding') as string | number | null, default_currency: after('default_currency') as string | null };
}

export function refuseCashRounding(row: RoundingSettings): void {
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
