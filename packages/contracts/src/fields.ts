import { z } from 'zod';

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

function decimalIn(opts: { min?: number; maxScale: number; max?: number; positive?: boolean }) {
  const max = opts.max ?? 1e12;
  // Each check stops the ones after it, so a field gets one message, the most basic that applies.
  return z
    .union([z.number().refine(Number.isFinite, 'must be a finite number'), plainString().trim().regex(DECIMAL, 'must be a decimal number')])
    .transform((v) => (typeof v === 'number' ? numberToPlain(v) : normalizeDecimalString(v)))
    .pipe(
      z
        .string()
        .refine((v) => scaleOf(v) <= opts.maxScale, { message: `must have at most ${opts.maxScale} decimal places`, abort: true })
        .refine((v) => opts.min === undefined || Number(v) >= opts.min, { message: `must be at least ${opts.min}`, abort: true })
        .refine((v) => !opts.positive || Number(v) > 0, { message: 'must be greater than 0', abort: true })
        .refine((v) => Math.abs(Number(v)) < max, { message: `must be less than ${max} in magnitude`, abort: true }),
    );
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

function numberToPlain(n: number): string {
  // JS prints the shortest string that round-trips, so 0.1 stays "0.1"; only exponent forms need care.
  const s = String(n);
  return /e/i.test(s) ? normalizeDecimalString(s) : s;
}

function normalizeDecimalString(s: string): string {
  if (!/e/i.test(s)) return s.startsWith('.') ? `0${s}` : s.startsWith('-.') ? `-0${s.slice(1)}` : s;
  const [mantissa, expPart] = s.toLowerCase().split('e') as [string, string];
  const exp = Number(expPart);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '');
  const [intPart, fracPart = ''] = digits.split('.') as [string, string?];
  const all = intPart + fracPart;
  const point = intPart.length + exp;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${all}`;
  else if (point >= all.length) out = all + '0'.repeat(point - all.length);
  else out = `${all.slice(0, point)}.${all.slice(point)}`;
  out = out.replace(/^0+(?=\d)/, '');
  if (out.includes('.')) out = out.replace(/0+$/, '').replace(/\.$/, '');
  return negative && out !== '0' ? `-${out}` : out;
}

function scaleOf(v: string): number {
  const dot = v.indexOf('.');
  return dot < 0 ? 0 : v.length - dot - 1;
}
