import { z } from 'zod';
import type { FieldError } from './envelope';
import { checkShape, fieldName, printable, requestShapeLimits, type ShapeLimits } from './shape';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string; errors: FieldError[] };

/** Field errors an answer lists at most; a body of a thousand bad lines says so without a megabyte of messages. */
export const MAX_REPORTED_ERRORS = 50;

/**
 * Parses input against a schema and turns zod issues into field errors a person can read.
 * The input's shape (depth, array and object sizes) is checked first, without recursion, so a
 * pathological body is refused before the schema, or anything after it, walks it. The system's own
 * output (a reply may list every location of an organization) is checked with `limits: null`.
 */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, opts: { limits?: ShapeLimits | null } = {}): Parsed<z.output<S>> {
  const limits = opts.limits === undefined ? requestShapeLimits : opts.limits;
  const tooBig = limits ? checkShape(input, limits) : undefined;
  if (tooBig) return { ok: false, message: `Invalid request: ${tooBig.message}`, errors: [tooBig] };
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  const issues = result.error.issues;
  const errors = issues.slice(0, MAX_REPORTED_ERRORS).map(toFieldError);
  const more = issues.length > errors.length ? `; and ${issues.length - errors.length} more` : '';
  const message = `Invalid request: ${errors.map((e) => e.message).join('; ')}${more}`;
  return { ok: false, message, errors };
}

function toFieldError(issue: z.core.$ZodIssue): FieldError {
  const field = fieldName(issue.path);
  const input = (issue as { input?: unknown }).input;
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_union') && input === undefined) {
    return { field, message: `${field} is required` };
  }
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_union') && (input === Infinity || input === -Infinity)) {
    // JSON has no infinity: JSON.parse reads a number past the doubles' range (1e400) as one.
    return { field, message: `${field} must be a finite number (a JSON number of magnitude 1.8e308 or more reads as infinite)` };
  }
  if (issue.code === 'invalid_value' && 'values' in issue) {
    return { field, message: `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}` };
  }
  if (issue.code === 'invalid_type') {
    return { field, message: `${field} must be ${article(issue.expected)}, got ${describe(input)}` };
  }
  if (issue.code === 'invalid_union') {
    // A branch that accepted the type but refused the value says the most useful thing: a rule's own
    // message first, then any but the "clear it" branches ("" or null) of a field that may be cleared.
    const branches = issue.errors.flat();
    const clearing = (i: z.core.$ZodIssue) => i.code === 'invalid_value' && i.values.every((v) => v === '' || v === null);
    const specific =
      branches.find((i) => i.code === 'custom') ??
      branches.find((i) => i.code !== 'invalid_type' && !clearing(i)) ??
      branches.find((i) => i.code !== 'invalid_type');
    return { field, message: specific ? `${field} ${specific.message}` : `${field} has an invalid value: ${describe(input)}` };
  }
  if (issue.code === 'invalid_key') {
    // An object key that becomes data (a location id, an option name): the field is the key, the message its check's.
    const inner = issue.issues[0];
    return { field, message: `${field} ${inner?.message ?? 'is not a valid key'}` };
  }
  return { field, message: `${field} ${issue.message}` };
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  switch (typeof v) {
    case 'string':
      return `a string "${printable(v, 40)}"`;
    // The rest but objects print as themselves (JSON only ever brings numbers and booleans here).
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'symbol':
    case 'undefined':
    case 'function':
      return `${typeof v} ${String(v)}`;
    default:
      return 'an object';
  }
}
