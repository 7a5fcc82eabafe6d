import { IANA_TIME_ZONE_NAME, ISO_4217_CODES, minorUnit } from '@bo/kernel';
import { TRIMMED_SPACE, WHITE_SPACE } from './fields';
import { pngProblem } from './png';

/**
 * Checks of the standard codes an organization and its partners carry. Pure and shared: the
 * gateway and the services validate with the same schemas, so one copy of each list lives here.
 */

/** ISO 3166-1 alpha-2: the 249 officially assigned codes (no user-assigned or reserved ones such as XK, EU, UK). */
export const countryCodes: ReadonlySet<string> = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
    'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
    'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
    'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
    'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);

export function isCountryCode(code: string): boolean {
  return countryCodes.has(code);
}

/**
 * Current ISO 4217 codes a document can be priced in: the kernel's list, without the codes that have
 * no minor unit (gold, SDR, test codes). One list for partners, organizations and documents alike, so
 * no code a partner takes is one its invoices refuse.
 */
const currencyCodes: ReadonlySet<string> = new Set(ISO_4217_CODES.filter((code) => typeof minorUnit(code) === 'number'));

export function isCurrencyCode(code: string): boolean {
  return currencyCodes.has(code);
}

/** An IBAN with its spaces removed and upper-cased, the form it is stored in. */
export function normalizeIban(iban: string): string {
  return iban.replace(/\s+/g, '').toUpperCase();
}

/** ISO 13616: country, two check digits, up to 30 letters or digits, and the mod-97 checksum equals 1. */
export function isValidIban(normalized: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(normalized) || !isCountryCode(normalized.slice(0, 2))) return false;
  const rearranged = normalized.slice(4) + normalized.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const value = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

/** ISO 9362 BIC: bank (4 letters), country, location (2), optional branch (3). */
export function isValidBic(bic: string): boolean {
  return /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic) && isCountryCode(bic.slice(4, 6));
}

/** The largest logo accepted, in bytes (decoded). */
export const MAX_LOGO_BYTES = 256 * 1024;

/** Bytes a standard base64 string decodes to, from its length and padding alone. */
export function base64DecodedLength(b64: string): number {
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return (b64.length / 4) * 3 - padding;
}

/** Why a base64 string is not an acceptable logo, or undefined when it is. */
export function logoProblem(b64: string): string | undefined {
  if (b64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return 'must be standard base64 (A-Z, a-z, 0-9, +, /, = padding)';
  const size = base64DecodedLength(b64);
  if (size > MAX_LOGO_BYTES) return `must be a PNG of at most ${MAX_LOGO_BYTES} bytes (256 kB); this one is ${size} bytes`;
  // Decoded and checked through: a PNG the PDF renderer cannot draw must not get as far as a render.
  return pngProblem(Buffer.from(b64, 'base64'));
}

// ---- the same checks as JSON Schema patterns, for the OpenAPI document ----
// Each describes the input as a request carries it: white space around it (which the schema trims)
// and either case where the schema upper-cases. A test holds each to its check.

/** Letters in either case, for a code the schema upper-cases: `fr` → `[Ff][Rr]`. */
function anyCase(code: string): string {
  return [...code].map((c) => (/[A-Z]/.test(c) ? `[${c}${c.toLowerCase()}]` : c)).join('');
}

/** An alternation of codes grouped by their first letter, so that the pattern stays short. */
function codesPattern(codes: Iterable<string>): string {
  const byFirst = new Map<string, string[]>();
  for (const code of codes) byFirst.set(code[0] as string, [...(byFirst.get(code[0] as string) ?? []), code.slice(1)]);
  const groups = [...byFirst].map(([first, rests]) => `${anyCase(first)}(?:${rests.map(anyCase).join('|')})`);
  return `(?:${groups.join('|')})`;
}

const SPACE = TRIMMED_SPACE;
const NOT_SPACE_OR_AT = `[^@${WHITE_SPACE}]`;
const padded = (inner: string) => new RegExp(`^${SPACE}*${inner}${SPACE}*$`);

const COUNTRY = codesPattern(countryCodes);
export const countryCodePattern = padded(COUNTRY);
export const currencyCodePattern = padded(codesPattern(currencyCodes));
export const bicPattern = padded(`[A-Za-z]{4}${COUNTRY}[A-Za-z0-9]{2}(?:[A-Za-z0-9]{3})?`);
/** The IBAN's shape with spaces anywhere (they are removed); its country and mod-97 checksum are beyond a pattern. */
export const ibanPattern = new RegExp(`^${SPACE}*(?:[A-Za-z]${SPACE}*){2}(?:[0-9]${SPACE}*){2}(?:[A-Za-z0-9]${SPACE}*){11,30}$`);
/** The name's shape; whether the time zone database knows it is beyond a pattern. */
export const timeZonePattern = padded(IANA_TIME_ZONE_NAME.source.slice(1, -1));

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** An email address as the system accepts one: something, an at sign, a domain with a dot; no white space. */
export function isEmailAddress(value: string): boolean {
  return EMAIL.test(value);
}
const EMAIL_ADDRESS = `${NOT_SPACE_OR_AT}+@${NOT_SPACE_OR_AT}+\\.${NOT_SPACE_OR_AT}+`;
export const emailPattern = padded(EMAIL_ADDRESS);
/** An email address or nothing (the empty string clears it). */
export const optionalEmailPattern = padded(`(?:${EMAIL_ADDRESS})?`);

/** Standard base64 of a whole number of 4-character groups, as `logoProblem` first requires. */
export const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** The base64 length of the largest logo. */
export const MAX_LOGO_BASE64 = Math.ceil(MAX_LOGO_BYTES / 3) * 4;
