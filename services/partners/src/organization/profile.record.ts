import { organization } from '@bo/contracts';
import { DEFAULT_ROUNDING, formatDate, formatDateTime, toNumber, type RoundingPolicy } from '@bo/kernel';

export interface ProfileRow {
  org_id: number;
  version: number;
  legal_name: string | null;
  trading_name: string | null;
  address_line1: string | null;
  address_line2: string | null;
  city: string | null;
  postal_code: string | null;
  country: string | null;
  vat_id: string | null;
  company_id: string | null;
  email: string | null;
  phone: string | null;
  iban: string | null;
  bic: string | null;
  default_currency: string | null;
  time_zone: string | null;
  rounding: RoundingPolicy | null;
  /** numeric, as the driver reads it. */
  cash_rounding: string | null;
  /** date, as the driver reads it. */
  lock_date: string | Date | null;
  peppol_id: string | null;
  logo_png: Buffer | null;
  logo_sha256: string | null;
  updated_by: string | null;
  updated_at: Date;
}

/**
 * Every column of ProfileRow, for a statement that reads the profile beside another table's row
 * under names of its own (prefixed), keeping the driver's types (bytes, numerics as text, dates).
 */
export const PROFILE_COLUMNS = [
  'org_id',
  'version',
  'legal_name',
  'trading_name',
  'address_line1',
  'address_line2',
  'city',
  'postal_code',
  'country',
  'vat_id',
  'company_id',
  'email',
  'phone',
  'iban',
  'bic',
  'default_currency',
  'time_zone',
  'rounding',
  'cash_rounding',
  'lock_date',
  'peppol_id',
  'logo_png',
  'logo_sha256',
  'updated_by',
  'updated_at',
] as const satisfies readonly (keyof ProfileRow)[];
// Fails to compile when ProfileRow gains a column the list leaves out.
const _everyProfileColumn: Record<Exclude<keyof ProfileRow, (typeof PROFILE_COLUMNS)[number]>, never> = {};
void _everyProfileColumn;

/** The fields a set copies as given (the logo is stored as bytes). */
export const SET_FIELDS = organization.profileFieldNames.filter((f) => f !== 'logo_png');
/** The text fields, answered as stored. */
const TEXT_FIELDS = SET_FIELDS.filter(
  (f): f is Exclude<typeof f, 'rounding' | 'cash_rounding' | 'lock_date'> => f !== 'rounding' && f !== 'cash_rounding' && f !== 'lock_date',
);

/** The profile without the logo's bytes: the event's data. */
export function toProfileSummary(orgId: number, row: ProfileRow | undefined): organization.ProfileSummary {
  const text = Object.fromEntries(TEXT_FIELDS.map((f) => [f, row?.[f] ?? null])) as Record<(typeof TEXT_FIELDS)[number], string | null>;
  return {
    org_id: orgId,
    version: row?.version ?? 0,
    ...text,
    rounding: row?.rounding ?? DEFAULT_ROUNDING,
    cash_rounding: row?.cash_rounding ? toNumber(row.cash_rounding) : null,
    lock_date: formatDate(row?.lock_date ?? null),
    logo_sha256: row?.logo_sha256 ?? null,
    logo_bytes: row?.logo_png ? row.logo_png.length : null,
    updated_at: row ? formatDateTime(row.updated_at) : null,
  };
}

/** The whole profile; an organization that never set one reads as all nulls at version 0. */
export function toProfileRecord(orgId: number, row: ProfileRow | undefined): organization.ProfileRecord {
  return { ...toProfileSummary(orgId, row), logo_png: row?.logo_png ? row.logo_png.toString('base64') : null };
}
