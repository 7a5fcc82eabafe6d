import { z } from 'zod';
import { baseRequest, plainString, text } from '../fields';
import { isCountryCode, isCurrencyCode, isTimeZone, isValidBic, isValidIban, logoProblem, normalizeIban } from '../identifiers';

/**
 * A field of a partial update: absent keeps the stored value, `null` or `""` clears it, anything
 * else must pass `schema`.
 */
function clearable<S extends z.ZodType>(schema: S) {
  return z
    .union([z.null(), z.literal(''), schema])
    .optional()
    .transform((v) => (v === '' ? null : v));
}

const line = (max: number) => text(max).trim();

export const countryField = plainString()
  .trim()
  .transform((v) => v.toUpperCase())
  .refine(isCountryCode, 'must be an ISO 3166-1 alpha-2 country code (FR, NZ, US ...)');
export const currencyField = plainString()
  .trim()
  .transform((v) => v.toUpperCase())
  .refine(isCurrencyCode, 'must be an ISO 4217 currency code (EUR, USD ...)');
export const timeZoneField = plainString()
  .trim()
  .refine(isTimeZone, 'must be an IANA time zone name (Europe/Paris, Pacific/Auckland, UTC ...)');
const emailField = plainString()
  .trim()
  // A longer text stops here: the pattern, quadratic on a text of dots, never sees it.
  .max(254, { abort: true })
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be a valid email address');
const ibanField = plainString()
  .max(50)
  .transform(normalizeIban)
  .refine(isValidIban, 'must be a valid IBAN (country, check digits and account; the checksum does not match)');
const bicField = plainString()
  .trim()
  .transform((v) => v.toUpperCase())
  .refine(isValidBic, 'must be a BIC of 8 or 11 characters (bank, country, location, optional branch)');
// The size from the length first, then decoded and checked through (png.ts): PDFs draw it later.
const logoField = z.string().superRefine((v, ctx) => {
  const problem = logoProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

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
  logo_png: clearable(logoField),
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
