import { z } from 'zod';
import { readDecimal } from './decimal-text';

/**
 * Field schemas shared by every domain. Ids and numbers arrive from existing clients both as JSON
 * numbers and as numeric strings ("42"), so both are accepted; decimals are carried on as strings
 * so that no binary floating point ever touches money.
 */

const INTEGER = /^-?\d+$/;
const DECIMAL = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/**
 * Text a person types, and PostgreSQL can store. Every string a request carries is built from
 * `plainString`, so this is the one place that says what a string field may hold:
 * - no control character (C0, DEL, C1): NUL cannot be stored at all, the others are never typed;
 *   multi-line text (notes, descriptions, addresses, terms) keeps tab, line feed and CRLF;
 * - no unpaired UTF-16 surrogate (not Unicode: the driver would silently store U+FFFD instead) and
 *   no noncharacter U+FFFE/U+FFFF (a byte-order mark read backwards, never text).
 */
export type TextKind = 'line' | 'multiline';

// Control characters are what these two patterns exist to find (see above).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/;
// eslint-disable-next-line no-control-regex
const CONTROL_IN_MULTILINE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|\r(?!\n)/;
// With the u flag a class of surrogates matches only a surrogate without its pair.
const NOT_UNICODE_TEXT = /[\uD800-\uDFFF\uFFFE\uFFFF]/u;

export const controlCharactersMessage: Record<TextKind, string> = {
  line: 'must not contain control characters',
  multiline: 'must not contain control characters other than tab and line breaks',
};
export const invalidUnicodeMessage = 'must not contain unpaired surrogates or noncharacters (U+FFFE, U+FFFF)';

/** Why a string may not be stored as `kind` text, or undefined when it may. */
export function textProblem(value: string, kind: TextKind = 'line'): string | undefined {
  if ((kind === 'line' ? CONTROL : CONTROL_IN_MULTILINE).test(value)) return controlCharactersMessage[kind];
  if (NOT_UNICODE_TEXT.test(value)) return invalidUnicodeMessage;
  return undefined;
}

/** A string schema that refuses what `textProblem` refuses; chain trim/min/max/regex on it as on `z.string()`. */
export function plainString(kind: TextKind = 'line') {
  return z.string().superRefine((v, ctx) => {
    const problem = textProblem(v, kind);
    // A refused character stops the checks after it: the field gets this one message.
    if (problem) ctx.addIssue({ code: 'custom', message: problem, continue: false });
  });
}

export const orgIdField = z
  .union([z.number(), plainString().trim().regex(INTEGER, 'must be an integer')])
  .transform(Number)
  .pipe(z.number().int('must be an integer').positive('must be a positive integer').max(2147483647));

/** Integer ids (products, partners, invoices ...): a JSON integer or a string holding one. */
export const intId = orgIdField;

/** String ids (categories, warehouses, locations, stock moves). */
export const stringId = z.union([plainString().trim().min(1, 'must not be empty').max(64), z.number().int()]).transform(String);

export const userIdField = z.union([plainString().max(64), z.number().int()]).transform(String);

/**
 * A body's `userid` as request metadata carries it, read before (or without) the schema: text and
 * numbers as they print; any other JSON value as its JSON text (`userIdField` refuses it anyway).
 */
export function userIdText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** A single-line text field (names, codes, references); `'multiline'` for notes, descriptions, addresses, terms. */
export const text = (max = 255, kind: TextKind = 'line') => plainString(kind).max(max, `must be at most ${max} characters`);
export const optionalText = (max = 255, kind: TextKind = 'line') =>
  z
    .union([text(max, kind), z.null()])
    .optional()
    .transform((v) => (v === null ? undefined : v));

/** A search term of a list (matched against names, numbers, emails). */
export const searchText = () => text(200).optional();

/** What a decimal field accepts: at most `maxScale` decimal places, a magnitude below `max`, at least `min`, above 0 when `positive`. */
export interface DecimalRule {
  min?: number;
  maxScale: number;
  max: number;
  positive?: boolean;
}

function decimalIn(opts: { min?: number; maxScale: number; max?: number; positive?: boolean }) {
  const rule: DecimalRule = { ...opts, max: opts.max ?? 1e12 };
  return z
    .union([z.number().refine(Number.isFinite, 'must be a finite number'), plainString().trim().regex(DECIMAL, 'must be a decimal number')])
    .transform((v, ctx) => {
      const judged = judgeDecimal(v, rule);
      if (judged.ok) return judged.value;
      ctx.addIssue({ code: 'custom', message: judged.problem, input: v });
      return z.NEVER;
    })
    .pipe(plainString());
}

/** Money amount: up to 2 decimal places, below 10^12 (exact as a JSON number), kept as an exact decimal string. */
export const money = (opts: { min?: number; positive?: boolean } = {}) => decimalIn({ ...opts, maxScale: 2 });
/**
 * Unit price or quantity: up to 4 decimal places, below 10^10 so that every value still fits the
 * 15 significant digits a JSON number carries exactly.
 */
export const quantity = (opts: { min?: number; positive?: boolean } = {}) => decimalIn({ ...opts, maxScale: 4, max: 1e10 });
/** Percentages (tax rate, discount): 0 to 100 with up to 4 decimal places. */
export const percentage = () => decimalIn({ min: 0, maxScale: 4 }).refine((v) => Number(v) <= 100, 'must be at most 100');

export const dateField = plainString()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written YYYY-MM-DD')
  .refine(isRealDate, 'is not a real calendar date');

export const dateTimeField = plainString()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/, 'must be a date-time written YYYY-MM-DDTHH:MM:SS')
  .refine((v) => isRealDate(v.slice(0, 10)) && isRealTime(v.slice(11)), 'is not a real date-time');

export const booleanField = z.boolean();

export const pageRequest = {
  page_number: z
    .union([z.number(), plainString().regex(INTEGER, 'must be an integer')])
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1'))
    .optional(),
  page_size: z
    .union([z.number(), plainString().regex(INTEGER, 'must be an integer')])
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(100, 'must be at most 100'))
    .optional(),
};

export const paginationSchema = z.object({
  page_number: z.number().int(),
  page_size: z.number().int(),
  total_items: z.number().int(),
  total_pages: z.number().int(),
  has_next: z.boolean(),
  has_previous: z.boolean(),
});
export type Pagination = z.infer<typeof paginationSchema>;

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

/** Fields every request carries. */
export const baseRequest = {
  org_id: orgIdField,
  userid: userIdField.optional(),
};

function isRealDate(v: string): boolean {
  const [y, m, d] = v.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d && y >= 1900 && y <= 9999;
}

function isRealTime(v: string): boolean {
  const [h, mi, s] = v.split(':').map(Number) as [number, number, number];
  return h < 24 && mi < 60 && s < 60;
}

/**
 * A decimal judged against its field's rule without ever being written out in full, in time linear
 * in its text: "1e999999999" is refused as too large and "1e-999999999" as too precise, where
 * writing them out would take a gigabyte. Answers the decimal as a plain string (no exponent), or
 * the one problem the field reports, the most basic that applies: a non-number, the scale, the
 * minimum, the sign, the magnitude.
 *
 * - A string is judged digit by digit and answered without leading zeros. Without an exponent its
 *   decimal places are kept as written ("12.30" keeps its scale of 2; "007.50" is "7.50", ".5" is
 *   "0.5", "5." is "5"); with one it is written plainly, without trailing zeros either ("1.50e1" is
 *   "15"), and its scale is that plain form's.
 * - A JSON number arrives as the double JSON.parse made of it and is judged as the shortest text
 *   that reads back as that double (0.1 is "0.1", 1e21 is "1000000000000000000000").
 * - A zero has no sign: "-0" is "0", "-0.00" is "0.00".
 *
 * The range is compared on the value as a double (correctly rounded from the text, as before any
 * expansion): every bound is far inside the doubles' exact range for the scales allowed, and a
 * value written with thousands of digits still reads in one pass. The plain string is built only
 * for a value in range, so it is at most a few characters longer than the bound's digits plus the
 * scale, whatever the exponent said.
 */
export function judgeDecimal(input: string | number, rule: DecimalRule): { ok: true; value: string } | { ok: false; problem: string } {
  if (typeof input === 'number' && !Number.isFinite(input)) return { ok: false, problem: 'must be a finite number' };
  const text = typeof input === 'number' ? String(input) : input;
  if (!DECIMAL.test(text)) return { ok: false, problem: 'must be a decimal number' };
  const read = readDecimal(text);
  if (read.scale > rule.maxScale) return { ok: false, problem: `must have at most ${rule.maxScale} decimal places` };
  // The value as a double: Number() reads any length of digits and any exponent, rounding correctly
  // (an exponent past the doubles' range reads as ±Infinity, or as ±0 below it, which the scale has refused).
  const value = Number(text);
  if (rule.min !== undefined && value < rule.min) return { ok: false, problem: `must be at least ${rule.min}` };
  if (rule.positive && !(value > 0)) return { ok: false, problem: 'must be greater than 0' };
  if (!(Math.abs(value) < rule.max)) return { ok: false, problem: `must be less than ${rule.max} in magnitude` };
  return { ok: true, value: read.plain() };
}
