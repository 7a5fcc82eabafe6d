import { isTimeZone, ROUNDING_POLICIES } from '@bo/kernel';
import { z } from 'zod';
import { atMost, baseRequest, dateField, plainString, quantity, text } from '../fields';
import {
  base64Pattern,
  bicPattern,
  countryCodePattern,
  currencyCodePattern,
  emailPattern,
  ibanPattern,
  isCountryCode,
  isCurrencyCode,
  isEmailAddress,
  isValidBic,
  isValidIban,
  logoProblem,
  MAX_LOGO_BASE64,
  normalizeIban,
  timeZonePattern,
} from '../identifiers';
import { rule } from '../json-schema';
import { peppolIdPattern, peppolIdProblem } from '../peppol-id';

/** A refinement as a rule documented by `pattern`: `check` passes, or the field gets `message`. */
const checked = (check: (v: string) => boolean, message: string, pattern: RegExp, format?: string) =>
  rule<string>((v) => (check(v) ? undefined : message), { patterns: [pattern], format });

/**
 * A field of a partial update: absent keeps the stored value, `null` or `""` clears it, anything
 * else must pass `schema`.
 */
export function clearable<S extends z.ZodType>(schema: S) {
  return z
    .union([z.null(), z.literal(''), schema])
    .optional()
    .transform((v) => (v === '' ? null : v));
}

const line = (max: number) => text(max).trim();

export const countryField = plainString()
  .trim()
  .check(checked((v) => isCountryCode(v.toUpperCase()), 'must be an ISO 3166-1 alpha-2 country code (FR, NZ, US ...)', countryCodePattern))
  .transform((v) => v.toUpperCase());
export const currencyField = plainString()
  .trim()
  .check(
    checked(
      (v) => isCurrencyCode(v.toUpperCase()),
      'must be a current ISO 4217 currency code with a minor unit (EUR, USD, JPY ...)',
      currencyCodePattern,
    ),
  )
  .transform((v) => v.toUpperCase());
export const timeZoneField = plainString()
  .trim()
  .check(checked(isTimeZone, 'must be an IANA time zone name (Europe/Paris, Pacific/Auckland, UTC ...)', timeZonePattern))
  .describe('An IANA time zone name (Europe/Paris, UTC) that the time zone database knows; the pattern is its shape only');
const emailField = plainString()
  .trim()
  // A longer text stops at the length (its check aborts): the pattern, quadratic on a text of dots, never sees it.
  .check(atMost(254), checked(isEmailAddress, 'must be a valid email address', emailPattern));
export const ibanField = plainString()
  .check(
    atMost(50),
    checked(
      (v) => isValidIban(normalizeIban(v)),
      'must be a valid IBAN (country, check digits and account; the checksum does not match)',
      ibanPattern,
      'iban',
    ),
  )
  .transform(normalizeIban)
  .describe(
    'An IBAN (ISO 13616), spaces allowed: an ISO 3166 country, and check digits that pass the mod-97 checksum (beyond the pattern)',
  );
export const bicField = plainString()
  .trim()
  .check(
    checked(
      (v) => isValidBic(v.toUpperCase()),
      'must be a BIC of 8 or 11 characters (bank, country, location, optional branch)',
      bicPattern,
    ),
  )
  .transform((v) => v.toUpperCase());
// The size from the length first, then decoded and checked through (png.ts): PDFs draw it later.
const logoField = z
  .string()
  .check(rule((v) => logoProblem(v), { patterns: [base64Pattern], maxLength: MAX_LOGO_BASE64 }))
  .meta({
    contentEncoding: 'base64',
    contentMediaType: 'image/png',
    description: 'A PNG image of at most 256 kB, in standard base64, that decodes and draws (beyond the pattern)',
  });

/**
 * A Peppol participant id, `<EAS scheme>:<identifier>` (peppol-id.ts): the scheme from the EAS code
 * list the Peppol rules accept, the identifier passing the checks they make of its scheme.
 */
export const peppolIdField = plainString()
  .trim()
  .check(
    atMost(60),
    rule<string>((v) => peppolIdProblem(v), { patterns: [peppolIdPattern], format: 'peppol-id' }),
  )
  .describe(
    'A Peppol participant id, <EAS scheme>:<identifier> (0208:0123456749): the scheme in the EAS code list of the Peppol BIS Billing 3.0 rules, the identifier passing their check for its scheme (0088 GLN, 0208 Belgian, 0192 Norwegian, 0184 Danish, 0007 Swedish, 0151 ABN), beyond the pattern (`format: peppol-id`)',
  );

/** The profile's own fields, all optional in a set (partial update). */
const profileFields = {
  legal_name: clearable(line(200)),
  trading_name: clearable(line(200)),
  address_line1: clearable(line(200)),
  address_line2: clearable(line(200)),
  city: clearable(line(100)),
  postal_code: clearable(line(20)),
  country: clearable(countryField),
  vat_id: clearable(line(50)),
  company_id: clearable(line(50)),
  email: clearable(emailField),
  phone: clearable(line(50)),
  iban: clearable(ibanField),
  bic: clearable(bicField),
  default_currency: clearable(currencyField),
  time_zone: clearable(timeZoneField),
  /** How documents round (docs/invoicing.md "Taxes and rounding"): `line` (default) or `document`; null clears it back to `line`. */
  rounding: clearable(z.enum(ROUNDING_POLICIES)),
  /** Round every amount due to a multiple of this (0.05 for 5-cent coins), the difference being BT-114; null: no cash rounding. */
  cash_rounding: clearable(quantity({ positive: true })),
  /**
   * The books are closed up to and including this day (the organization's local date): invoicing
   * refuses to validate, pay, allocate, refund, write off or void anything dated on or before it
   * (docs/invoicing.md "Lock date"); null clears it.
   */
  lock_date: clearable(dateField),
  logo_png: clearable(logoField),
  /** The organization's Peppol participant id, its electronic address (BT-34) on Peppol documents; null clears it. */
  peppol_id: clearable(peppolIdField),
};
export const profileFieldNames = Object.keys(profileFields) as Array<keyof typeof profileFields>;

export const getProfileRequest = z.object({ ...baseRequest });
export const setProfileRequest = z.object({ ...baseRequest, ...profileFields });

const nullableString = z.string().nullable();

/** The profile without the logo's bytes: what the event carries and other services keep. */
export const profileSummary = z.object({
  org_id: z.number().int(),
  /** Increases by one with every set, so a read model keeps the newest whatever the delivery order. */
  version: z.number().int(),
  legal_name: nullableString,
  trading_name: nullableString,
  address_line1: nullableString,
  address_line2: nullableString,
  city: nullableString,
  postal_code: nullableString,
  country: nullableString,
  vat_id: nullableString,
  company_id: nullableString,
  email: nullableString,
  phone: nullableString,
  iban: nullableString,
  bic: nullableString,
  default_currency: nullableString,
  time_zone: nullableString,
  /** The rounding policy of the organization's documents (`line` while never set; an event from before the field reads as `line`). */
  rounding: z.enum(ROUNDING_POLICIES).default('line'),
  /** The multiple amounts due are rounded to; null for none. */
  cash_rounding: z.number().nullable().default(null),
  /** The last day of closed books (`YYYY-MM-DD`); null while none is set (an event from before the field reads as none). */
  lock_date: z.string().nullable().default(null),
  /** The Peppol participant id (`0208:0123456749`); null while none is set (an event from before the field reads as none). */
  peppol_id: z.string().nullable().default(null),
  /** SHA-256 (hex) of the logo's bytes, so a consumer knows when to fetch it again; null without a logo. */
  logo_sha256: nullableString,
  logo_bytes: z.number().int().nullable(),
  /** When the profile was last set; null while it never was. */
  updated_at: nullableString,
});
export type ProfileSummary = z.infer<typeof profileSummary>;

export const profileRecord = profileSummary.extend({ logo_png: nullableString });
export type ProfileRecord = z.infer<typeof profileRecord>;

export const profileReply = z.object({ message: z.string(), organization: profileRecord });
