import { z } from 'zod';
import { readDecimal } from './decimal-text';
import { documented, rule, type JsonSchema } from './json-schema';

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

/**
 * The patterns of the OpenAPI document are written so that every mainstream engine reads them alike:
 * ECMA-262 with and without the `u` flag, Python's `re`, Rust's `regex` and PCRE. A character
 * outside ASCII stands as itself (PCRE reads no `\uXXXX`; a JSON reader hands every engine the
 * character), a control character as `\xHH`, a digit as `[0-9]` (`\d` is every script's digits in
 * Python and Rust), white space as its list (`\s` differs between engines), and nothing looks
 * around (Rust cannot). tests/openapi/patterns.unit.test.ts holds every pattern of the document to
 * this, with the five engines.
 *
 * C0, DEL and C1, for a class of a pattern: the characters text never holds (`textProblem`).
 */
export const CONTROLS = '\\x00-\\x1F\\x7F-\\x9F';
/** U+FFFE and U+FFFF, for a class of a pattern (as the characters themselves). */
export const NONCHARACTERS = '\uFFFE\uFFFF';

/**
 * `textProblem` as the JSON Schema pattern of what it accepts, for the OpenAPI document: no control
 * characters (tab and line breaks in multi-line text), no noncharacters. An unpaired surrogate is
 * the one rule no portable pattern can state (a surrogate is not a character to Rust, and without
 * the `u` flag each half of a pair is one): the server keeps it and the schema says so in
 * `x-text-rule`. The server tests for the refused characters, which takes no backtracking.
 */
export const textPatterns: Record<TextKind, RegExp> = {
  line: new RegExp(`^[^${CONTROLS}${NONCHARACTERS}]*$`),
  multiline: new RegExp(`^(?:[^\\x00-\\x08\\x0B-\\x1F\\x7F-\\x9F${NONCHARACTERS}]|\\r\\n)*$`),
};
const unpairedSurrogateRule = 'no unpaired UTF-16 surrogate (refused with 400 naming the field)';

const textRules = {
  line: rule<string>((v) => textProblem(v, 'line'), {
    patterns: [textPatterns.line],
    extensions: { 'x-text-rule': unpairedSurrogateRule },
  }),
  multiline: rule<string>((v) => textProblem(v, 'multiline'), {
    patterns: [textPatterns.multiline],
    extensions: { 'x-text-rule': unpairedSurrogateRule },
  }),
};

/** A string schema that refuses what `textProblem` refuses; chain trim/regex/`atMost` on it as on `z.string()`. */
export function plainString(kind: TextKind = 'line') {
  // A refused character stops the checks after it: the field gets this one message.
  return z.string().check(textRules[kind]);
}

/**
 * What `String.prototype.trim` removes (JavaScript's `\s`) but the control characters, which text
 * never holds: for patterns, spelled out (as the characters themselves), since regex dialects
 * disagree on `\s`.
 */
export const SPACE_CHARACTERS = ' \u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF';
export const TRIMMED_SPACE = `[${SPACE_CHARACTERS}]`;
/** JavaScript's `\s`, for a class: the trimmed spaces and the control characters among them. */
export const WHITE_SPACE = `\\t\\n\\x0B\\f\\r${SPACE_CHARACTERS}`;
/** A character `String.prototype.trim` keeps. */
const NOT_SPACE = `[^${WHITE_SPACE}]`;

/** Characters a string holds as PostgreSQL and JSON Schema count them: code points, a surrogate pair being one. */
export function characterCount(value: string): number {
  let count = value.length;
  for (let i = 0; i < value.length - 1; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** At most `max` characters (code points, as varchar(n) and JSON Schema's maxLength count them). */
export const atMost = (max: number) =>
  rule<string>((v) => (v.length > max && characterCount(v) > max ? `must be at most ${max} characters` : undefined), { maxLength: max });

/** After `.trim()`: something is left (the input holds a character other than white space). */
export const notBlank = (message = 'must not be empty') =>
  rule<string>((v) => (v.length === 0 ? message : undefined), { patterns: [NOT_BLANK], minLength: 1 });
const NOT_BLANK = new RegExp(NOT_SPACE);

/** A positive 32-bit integer written in decimal (leading zeros allowed), the range every id and page number has. */
const POSITIVE_INT32 =
  '0*(?:[1-9][0-9]{0,8}|1[0-9]{9}|20[0-9]{8}|21[0-3][0-9]{7}|214[0-6][0-9]{6}|2147[0-3][0-9]{5}|21474[0-7][0-9]{4}|214748[0-2][0-9]{3}|2147483[0-5][0-9]{2}|21474836[0-3][0-9]|214748364[0-7])';
const MAX_INT32 = 2147483647;

export const orgIdField = documented(
  z
    .union([z.number(), plainString().trim().regex(INTEGER, 'must be an integer')])
    .transform(Number)
    .pipe(z.number().int('must be an integer').positive('must be a positive integer').max(MAX_INT32)),
  {
    anyOf: [
      { type: 'integer', minimum: 1, maximum: MAX_INT32 },
      { type: 'string', pattern: `^${TRIMMED_SPACE}*${POSITIVE_INT32}${TRIMMED_SPACE}*$` },
    ],
    description: `A positive integer up to ${MAX_INT32}, as a JSON number or a decimal string`,
  },
);

/** Integer ids (products, partners, invoices ...): a JSON integer or a string holding one. */
export const intId = orgIdField;

/** String ids (categories, warehouses, locations, stock moves). */
export const stringId = z.union([plainString().trim().check(notBlank(), atMost(64)), z.number().int()]).transform(String);

export const userIdField = z.union([plainString().check(atMost(64)), z.number().int()]).transform(String);

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
export const text = (max = 255, kind: TextKind = 'line') => plainString(kind).check(atMost(max));
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

interface DecimalRange extends DecimalRule {
  /** An inclusive upper bound below `max` (a percentage's 100). */
  atMost?: number;
}

/**
 * A decimal field's input forms in JSON Schema: a plain decimal string (no exponent) whose digits
 * keep it in range and scale, or a whole JSON number in range. A JSON number with decimals is read
 * too, but is not a form the schema offers: its scale would be a `multipleOf` of 0.01 or 0.0001,
 * which validators that divide binary floats judge unevenly (0.14 / 0.01 is 14.000000000000002), so
 * the schema states it in words and in `x-decimal-places`, and the server judges it.
 */
function decimalJsonSchema(r: DecimalRange): JsonSchema {
  const number: JsonSchema = { type: 'integer' };
  if (r.positive) number['exclusiveMinimum'] = 0;
  else if (r.min !== undefined) number['minimum'] = r.min;
  else number['exclusiveMinimum'] = -r.max;
  if (r.atMost !== undefined) number['maximum'] = r.atMost;
  else number['exclusiveMaximum'] = r.max;
  const sign = r.min === undefined && !r.positive ? '-?' : '';
  const fraction = (digits: string) => `(?:\\.${digits}{0,${r.maxScale}})?`;
  const whole =
    r.atMost === undefined
      ? `[0-9]{1,${Math.log10(r.max)}}${fraction('[0-9]')}`
      : `(?:[0-9]{1,${String(r.atMost).length - 1}}${fraction('[0-9]')}|${r.atMost}${fraction('0')})`;
  const string: JsonSchema = {
    type: 'string',
    pattern: `^${TRIMMED_SPACE}*${sign}0*(?:${whole}|\\.[0-9]{1,${r.maxScale}})${TRIMMED_SPACE}*$`,
  };
  // Greater than 0: some digit is not a zero.
  if (r.positive) string['allOf'] = [{ pattern: '[1-9]' }];
  const range = `${r.positive ? 'greater than 0' : r.min !== undefined ? `at least ${r.min}` : `greater than -${r.max}`} and ${r.atMost !== undefined ? `at most ${r.atMost}` : `less than ${r.max}`}`;
  return {
    anyOf: [number, string],
    description: `A decimal ${range}, with at most ${r.maxScale} decimal places: a decimal string ("12.50"), or a whole JSON number. The server also reads, within these bounds, a JSON number with up to ${r.maxScale} decimal places (12.5; \`x-decimal-places\`) and a string in exponent notation ("1.5e2").`,
    'x-decimal-places': r.maxScale,
  };
}

/**
 * Cash moved against documents (a payment, an allocation, a refund): up to 4 decimal places, as a
 * document's amounts (a currency has 0 to 4), below 10^12. The handler holds it to its currency's own
 * minor unit (`cashAmountRule`): 1.234 BHD is a payment, 1.234 EUR is not.
 */
export const cashAmount = (opts: { min?: number; positive?: boolean } = {}) =>
  documented(decimalIn({ ...opts, maxScale: 4 }), decimalJsonSchema({ ...opts, maxScale: 4, max: 1e12 }));
export const cashAmountRule = (field: string) =>
  ({ field, rule: "at most the decimals of its currency's minor unit (2 for EUR, 3 for BHD, 0 for JPY)" }) as const;

/** Money amount: up to 2 decimal places, below 10^12 (exact as a JSON number), kept as an exact decimal string. */
export const money = (opts: { min?: number; positive?: boolean } = {}) =>
  documented(decimalIn({ ...opts, maxScale: 2 }), decimalJsonSchema({ ...opts, maxScale: 2, max: 1e12 }));
/**
 * Unit price or quantity: up to 4 decimal places, below 10^10 so that every value still fits the
 * 15 significant digits a JSON number carries exactly.
 */
export const quantity = (opts: { min?: number; positive?: boolean } = {}) =>
  documented(decimalIn({ ...opts, maxScale: 4, max: 1e10 }), decimalJsonSchema({ ...opts, maxScale: 4, max: 1e10 }));
/** Percentages (tax rate, discount): 0 to 100 with up to 4 decimal places. */
export const percentage = () =>
  documented(
    decimalIn({ min: 0, maxScale: 4 }).refine((v) => Number(v) <= 100, 'must be at most 100'),
    decimalJsonSchema({ min: 0, maxScale: 4, max: 1e12, atMost: 100 }),
  );

/**
 * An exchange rate: units of one currency per unit of another, above 0 and below 10^8 with up to 10
 * decimal places (a rate of more than 15 digits comes as a string: a JSON number would not hold it).
 */
export const exchangeRate = () =>
  documented(decimalIn({ positive: true, maxScale: 10, max: 1e8 }), decimalJsonSchema({ positive: true, maxScale: 10, max: 1e8 }));

/**
 * Every real calendar day from 1900-01-01 to 9999-12-31 as a pattern, leap days included, so that
 * the OpenAPI document accepts exactly the dates the server does (`isRealDate`).
 */
const YEAR = '(?:19[0-9]{2}|[2-9][0-9]{3})';
const MONTH_DAY = '(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)';
const LEAP_YEAR = '(?:(?:19|[2-9][0-9])(?:0[48]|[2468][048]|[13579][26])|(?:[2468][048]|[3579][26])00)';
const CALENDAR_DATE = `(?:${YEAR}-${MONTH_DAY}|${LEAP_YEAR}-02-29)`;
export const calendarDatePattern = new RegExp(`^${CALENDAR_DATE}$`);
export const calendarDateTimePattern = new RegExp(`^${CALENDAR_DATE}T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$`);

export const dateField = plainString()
  .check(
    rule(
      (v) =>
        !/^\d{4}-\d{2}-\d{2}$/.test(v) ? 'must be a date written YYYY-MM-DD' : isRealDate(v) ? undefined : 'is not a real calendar date',
      {
        patterns: [calendarDatePattern],
        format: 'date',
      },
    ),
  )
  .describe('A real calendar date written YYYY-MM-DD, from 1900-01-01 to 9999-12-31');

export const dateTimeField = plainString()
  .check(
    rule(
      (v) =>
        !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(v)
          ? 'must be a date-time written YYYY-MM-DDTHH:MM:SS'
          : isRealDate(v.slice(0, 10)) && isRealTime(v.slice(11))
            ? undefined
            : 'is not a real date-time',
      { patterns: [calendarDateTimePattern] },
    ),
  )
  .describe('A real date and time in UTC written YYYY-MM-DDTHH:MM:SS (no offset), from 1900-01-01T00:00:00 to 9999-12-31T23:59:59');

export const booleanField = z.boolean();

/** A whole number from 1 to `max` as a JSON number or a decimal string (no padding); `pattern` writes the same range. */
const pageField = (max: number, pattern: string) =>
  documented(
    z
      .union([z.number(), plainString().regex(INTEGER, 'must be an integer')])
      .transform(Number)
      .pipe(z.number().int().min(1, 'must be at least 1').max(max, `must be at most ${max}`)),
    {
      anyOf: [
        { type: 'integer', minimum: 1, maximum: max },
        { type: 'string', pattern: `^${pattern}$` },
      ],
    },
  );

export const pageRequest = {
  page_number: pageField(MAX_INT32, POSITIVE_INT32).optional(),
  page_size: pageField(100, '0*(?:[1-9][0-9]?|100)').optional(),
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
