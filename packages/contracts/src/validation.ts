import { z } from 'zod';
import type { FieldError } from './envelope';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string; errors: FieldError[] };

/** Parses input against a schema and turns zod issues into field errors a person can read. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): Parsed<z.output<S>> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  const errors = result.error.issues.map(toFieldError);
  const message = `Invalid request: ${errors.map((e) => e.message).join('; ')}`;
  return { ok: false, message, errors };
}

function toFieldError(issue: z.core.$ZodIssue): FieldError {
  const field = issue.path.map(String).join('.') || 'body';
  const input = (issue as { input?: unknown }).input;
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_union') && input === undefined) {
    return { field, message: `${field} is required` };
  }
  if (issue.code === 'invalid_value' && 'values' in issue) {
    return { field, message: `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}` };
  }
  if (issue.code === 'invalid_type') {
    return { field, message: `${field} must be ${article(issue.expected)}, got ${describe(input)}` };
  }
  if (issue.code === 'invalid_union') {
    // A branch that accepted the type but refused the value says the most useful thing.
    const specific = issue.errors.flat().find((i) => i.code !== 'invalid_type');
    return { field, message: specific ? `${field} ${specific.message}` : `${field} has an invalid value: ${describe(input)}` };
  }
  return { field, message: `${field} ${issue.message}` };
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `a string "${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}
