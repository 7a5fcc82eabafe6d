import { z } from 'zod';

/**
 * How a request schema's rules reach the OpenAPI document. zod writes JSON Schema for its own checks
 * (lengths, bounds, regexes), but a refinement is a function it cannot read: every refinement a
 * request schema carries says here, explicitly, what it requires of the input in JSON Schema terms,
 * so that the document states every rule the server enforces (and a test proves the two agree).
 *
 * - `rule` is a check that both runs the refinement and contributes keywords (pattern, format,
 *   maxLength, ...) to its schema; it survives chaining (`.trim().max(...)`) like zod's own checks.
 * - `documented` gives a composite schema (a union with a transform, a record) its whole JSON Schema,
 *   where the input forms are easier to state than to derive.
 */
export type JsonSchema = Record<string, unknown>;

/** JSON Schema keywords a rule documents about the input it accepts. */
export interface RuleKeywords {
  /** Patterns (each applies); written without flags, in the portable form fields.ts describes. */
  patterns?: readonly RegExp[];
  format?: string;
  maxLength?: number;
  minLength?: number;
  /** `x-` members the schema carries: a rule the server keeps that no portable keyword states. */
  extensions?: Record<`x-${string}`, unknown>;
}

interface Bag {
  patterns?: Set<RegExp>;
  format?: string;
  maximum?: number;
  minimum?: number;
}

/**
 * A check that refuses a value when `problem` names one (the field gets that message, and no later
 * check runs), documented by `keywords`.
 */
export function rule<T>(problem: (value: T) => string | undefined, keywords: RuleKeywords): z.core.$ZodCheck<T> {
  const check = z.check<T>((payload) => {
    const message = problem(payload.value);
    if (message) payload.issues.push({ code: 'custom', message, input: payload.value, continue: false });
  });
  // What zod's own checks do to publish their keywords: the JSON Schema generator reads the bag.
  (check._zod.onattach as Array<(schema: z.core.$ZodType) => void>).push((schema) => {
    const bag = schema._zod.bag as Bag;
    for (const pattern of keywords.patterns ?? []) (bag.patterns ??= new Set()).add(pattern);
    if (keywords.format) bag.format = keywords.format;
    if (keywords.maxLength !== undefined) bag.maximum = Math.min(bag.maximum ?? Infinity, keywords.maxLength);
    if (keywords.minLength !== undefined) bag.minimum = Math.max(bag.minimum ?? 0, keywords.minLength);
    if (keywords.extensions) extendedSchemas.set(schema, { ...extendedSchemas.get(schema), ...keywords.extensions });
  });
  return check;
}

const documentedSchemas = new WeakMap<object, JsonSchema>();
const extendedSchemas = new WeakMap<object, JsonSchema>();

/** `schema` itself, whose JSON Schema (as a request's input) is `json` rather than what zod derives. */
export function documented<S extends z.ZodType>(schema: S, json: JsonSchema): S {
  documentedSchemas.set(schema, json);
  return schema;
}

/** The JSON Schema of a request's input or a reply, with every documented schema in place. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: ({ zodSchema, jsonSchema }) => {
      const extensions = io === 'input' ? extendedSchemas.get(zodSchema) : undefined;
      if (extensions) Object.assign(jsonSchema, extensions);
      const replacement = io === 'input' ? documentedSchemas.get(zodSchema) : undefined;
      if (!replacement) return;
      for (const key of Object.keys(jsonSchema)) delete (jsonSchema as JsonSchema)[key];
      Object.assign(jsonSchema, structuredClone(replacement));
    },
  }) as JsonSchema;
  delete json['$schema'];
  return withLiteralLineSeparators(json);
}

/**
 * `RegExp.prototype.source` writes U+2028 and U+2029 as `\u2028` and `\u2029`, escapes PCRE cannot
 * read: the document's patterns hold the characters themselves, as they hold every other one
 * outside ASCII (fields.ts).
 */
function withLiteralLineSeparators<T>(node: T): T {
  if (Array.isArray(node)) return node.map(withLiteralLineSeparators) as T;
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === 'pattern' && typeof value === 'string'
        ? value.replace(/\\u2028/g, '\u2028').replace(/\\u2029/g, '\u2029')
        : withLiteralLineSeparators(value);
  }
  return out as T;
}
