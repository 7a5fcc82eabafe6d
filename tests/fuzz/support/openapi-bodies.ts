import fc from 'fast-check';
import { calendarDateTimePattern } from '@bo/contracts';
import { documentFormats } from '../../../packages/contracts/src/json-schema.fixtures';
import { dereference } from '../../../packages/contracts/src/openapi.fixtures';
import { makePng } from '../../support/png';

/**
 * Request bodies for every operation, derived from `GET /openapi.json`: the operations on each path
 * (`requestBody.content['application/json'].schema.oneOf`, one per operation: a `$ref` to its
 * request schema, titled with its name, alone or under `allOf` beside what selects its neighbours),
 * how each is selected and whether it writes (`x-operations`). Values follow each property's type,
 * pattern, enum, bounds and length, with the property's name choosing plausible ids, amounts and dates
 * so that many requests reach the services and some hit rows that exist.
 */

export interface JsonSchema {
  type?: string | string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  minItems?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minProperties?: number;
  maxProperties?: number;
  allOf?: JsonSchema[];
  format?: string;
  contentMediaType?: string;
  description?: string;
  title?: string;
  /** A decimal's scale: the server also reads a JSON number with up to this many decimal places. */
  'x-decimal-places'?: number;
}

export type Selector = { action: string } | { flag: string } | { present: string } | { default: true };

export interface OperationCase {
  /** The path the body is posted to (the operation's canonical path or one it is also served on). */
  path: string;
  name: string;
  write: boolean;
  select: Selector;
  schema: JsonSchema;
  /** Fields that pick an operation on this path (actions, flags, presence); changing them re-routes. */
  pathSelectors: string[];
  /** The actions this path knows, empty when it routes by flags and fields only. */
  pathActions: string[];
  /** Flags that select an operation on this path. */
  pathFlags: string[];
}

interface OpenApiDoc {
  paths: Record<string, { post: { requestBody: { content: { 'application/json': { schema: { oneOf: JsonSchema[] } } } } } }>;
  'x-operations': Array<{ name: string; select: Selector; write: boolean }>;
}

/** Every (path, operation) pair the OpenAPI document serves. */
export function operationCases(doc: unknown): OperationCase[] {
  const openapi = dereference(doc) as OpenApiDoc;
  const meta = new Map(openapi['x-operations'].map((o) => [o.name, o]));
  const cases: OperationCase[] = [];
  for (const [path, item] of Object.entries(openapi.paths)) {
    const schemas = item.post.requestBody.content['application/json'].schema.oneOf;
    const selects = schemas.map((s) => meta.get(s.title as string)?.select as Selector);
    const pathActions = selects.flatMap((s) => ('action' in s ? [s.action] : []));
    const pathFlags = selects.flatMap((s) => ('flag' in s ? [s.flag] : []));
    const pathSelectors = [
      ...new Set([...(pathActions.length ? ['action'] : []), ...pathFlags, ...selects.flatMap((s) => ('present' in s ? [s.present] : []))]),
    ];
    for (const alternative of schemas) {
      // The operation's own schema; the members it leaves out for its neighbours it has none of anyway.
      const schema = alternative.allOf?.[0] ?? alternative;
      const op = meta.get(schema.title as string);
      if (!op) throw new Error(`operation ${schema.title} is not in x-operations`);
      // An operation whose body is itself a union (the reports, by `report`): a case per alternative,
      // each keeping the operation's name and the rules it states.
      const alternatives = schema.properties ? [schema] : (schema.oneOf ?? schema.anyOf ?? [schema]);
      for (const alternative of alternatives) {
        const rules = (schema as { 'x-rules'?: unknown })['x-rules'];
        const caseSchema = alternative === schema ? schema : { ...alternative, title: schema.title, 'x-rules': rules };
        cases.push({ path, name: op.name, write: op.write, select: op.select, schema: caseSchema, pathSelectors, pathActions, pathFlags });
      }
    }
  }
  return cases;
}

/** JSON text spliced into a body as is: numbers JSON.stringify cannot write (1e400, -0), shapes too deep to build. */
export class RawJson {
  constructor(readonly json: string) {}
}

/** A body to send: a value (usually an object) plus raw members spliced into the top-level object. */
export interface Body {
  value: unknown;
  /** Raw `"key":value` members, for keys such as `__proto__` that an object literal cannot hold as data. */
  rawMembers?: string[];
}

const RAW_MARK = '\u2063raw';

export function serialize(body: Body): string {
  const raws: string[] = [];
  let text =
    body.value instanceof RawJson
      ? body.value.json
      : (JSON.stringify(body.value, (_k, v: unknown) => {
          if (v instanceof RawJson) {
            raws.push(v.json);
            return `${RAW_MARK}${raws.length - 1}${RAW_MARK}`;
          }
          return v;
        }) ?? 'null');
  if (raws.length) text = text.replace(new RegExp(`"${RAW_MARK}(\\d+)${RAW_MARK}"`, 'g'), (_m, i: string) => raws[Number(i)] as string);
  if (body.rawMembers?.length && text.startsWith('{')) {
    text = `${text.slice(0, -1)}${text === '{}' ? '' : ','}${body.rawMembers.join(',')}}`;
  }
  return text;
}

/** Ids of records seeded before the run, by kind, so generated ids sometimes hit real rows. */
export type Pools = Record<
  'partner' | 'product' | 'category' | 'warehouse' | 'location' | 'quotation' | 'invoice' | 'payment' | 'endpoint' | 'event',
  Array<number | string>
>;

export const emptyPools = (): Pools => ({
  partner: [],
  product: [],
  category: [],
  warehouse: [],
  location: [],
  quotation: [],
  invoice: [],
  payment: [],
  endpoint: [],
  event: [],
});

const idKinds: Record<string, keyof Pools> = {
  partner: 'partner',
  partner_id: 'partner',
  partner_ids: 'partner',
  product_id: 'product',
  parent_product_id: 'product',
  category_id: 'category',
  parent_id: 'category',
  warehouse_id: 'warehouse',
  location_id: 'location',
  qty_locations: 'location',
  quotation_id: 'quotation',
  invoice_id: 'invoice',
  id: 'invoice',
  credit_note_id: 'invoice',
  payment_id: 'payment',
  endpoint_id: 'endpoint',
  // Webhook subscriptions: the event types the AsyncAPI document names, and patterns over them.
  events: 'event',
};

const DAY = 86_400_000;
const isoDate = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY).toISOString().slice(0, 10);
const dateBetween = (fromDays: number, toDays: number) => fc.integer({ min: fromDays, max: toDays }).map(isoDate);
const dateTimeBetween = (fromDays: number, toDays: number) =>
  fc
    .tuple(dateBetween(fromDays, toDays), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
    .map(([d, h, m]) => `${d}T${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:00`);

const INTEGER_PATTERN = '^-?\\d+$';
const DATE_TIME_PATTERN = calendarDateTimePattern.source;

function branches(schema: JsonSchema): JsonSchema[] {
  return schema.anyOf ?? schema.oneOf ?? [schema];
}

function typesOf(schema: JsonSchema): Set<string> {
  const out = new Set<string>();
  for (const b of branches(schema)) {
    if (b.anyOf || b.oneOf) typesOf(b).forEach((t) => out.add(t));
    else if (b.const !== undefined) out.add(typeof b.const === 'string' ? 'string' : typeof b.const);
    else if (Array.isArray(b.type)) b.type.forEach((t) => out.add(t));
    else if (b.type) out.add(b.type);
  }
  if (out.has('integer')) out.add('number');
  return out;
}

/** Every pattern a string schema carries: its own and those of its `allOf`. */
export function patternsOf(schema: JsonSchema): string[] {
  return [schema.pattern, ...(schema.allOf ?? []).map((s) => s.pattern)].filter((p): p is string => p !== undefined);
}
/** The pattern every text field carries (no control characters): says nothing about what the field is for. */
const isTextPattern = (p: string) => p.startsWith('^[^\\x00') || p.startsWith('^(?:[^\\x00');

/**
 * A URL the system would send to (a webhook's): drawn from its pattern it could name any public
 * address or host, which a test must never reach. Fuzzed endpoints point at this machine instead,
 * on the discard port, where nothing listens: a delivery attempt is refused at once and goes no
 * further. A system that takes them runs with WEBHOOKS_ALLOW_HTTP and WEBHOOKS_ALLOW_PRIVATE.
 */
const isUrl = (s: JsonSchema) => patternsOf(s).some((p) => p.startsWith('^https?:'));
export const LOOPBACK_URLS = ['http://127.0.0.1:9/hooks', 'http://localhost:9/conf?from=fuzz', 'https://127.0.0.1:9/'];

/** Decimals state their scale (`x-decimal-places`); ids and page numbers are integers from 1, or strings holding one. */
const isDecimal = (s: JsonSchema) => s['x-decimal-places'] !== undefined;
const isIntegerId = (s: JsonSchema) => branches(s).some((b) => b.type === 'integer' && b.minimum === 1);
const isDate = (s: JsonSchema) => branches(s).some((b) => b.format === 'date');
const hasPattern = (s: JsonSchema, p: string) => branches(s).some((b) => patternsOf(b).includes(p));

/** A decimal as a JSON number or a numeric string, with at most `scale` decimals. */
function decimal(min: number, max: number, scale: number): fc.Arbitrary<number | string> {
  const f = 10 ** scale;
  return fc
    .tuple(fc.integer({ min: Math.round(min * f), max: Math.round(max * f) }), fc.boolean())
    .map(([n, asString]) => (asString ? (n / f).toFixed(scale) : n / f));
}

function decimalFor(name: string): fc.Arbitrary<number | string> {
  if (name === 'tax_rate' || name === 'discount') return fc.oneof(fc.constantFrom(0, 5, 15, '20'), decimal(0, 100, 2));
  if (name === 'quantity') return fc.oneof(fc.constantFrom(1, 2, '3'), decimal(0.5, 50, 2));
  if (/stock|qty/.test(name)) return decimal(0, 500, 0);
  return fc.oneof(fc.constantFrom(0, 1, 10, 99.99, '250.50'), decimal(0, 5000, 2));
}

function dateFor(name: string): fc.Arbitrary<string> {
  if (name === 'valid_until') return dateBetween(1, 120);
  // A past start makes the scheduler catch up every missed period: keep contracts in the future but for a few.
  if (name === 'start_date') return fc.oneof({ weight: 9, arbitrary: dateBetween(0, 60) }, { weight: 1, arbitrary: dateBetween(-20, -1) });
  return dateBetween(-200, 200);
}

const word = fc.stringMatching(/^[A-Z][a-z]{2,8}( [A-Za-z0-9]{1,6})?$/);
const unicodeText = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 });

function textFor(name: string, schema: JsonSchema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 200;
  if (name === 'email')
    return fc.oneof(
      fc.emailAddress().filter((e) => e.length <= max),
      fc.constant(''),
    );
  const base = fc.oneof({ weight: 4, arbitrary: word }, { weight: 1, arbitrary: unicodeText });
  return base.map((s) => s.slice(0, max)).filter((s) => s.length >= min);
}

/** A valid-looking value for a property of the given name and schema. */
export function valueFor(name: string, schema: JsonSchema, pools: Pools): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (name === 'org_id') return fc.constantFrom(1, '1');
  if (name === 'userid') return fc.constantFrom('u1', 7, 'fuzzer');
  if (name === 'currency') return fc.constantFrom('USD', 'EUR', 'gbp', 'JPY');
  const kind = idKinds[name];
  const types = typesOf(schema);
  if (kind && schema.type !== 'array' && schema.type !== 'object' && (isIntegerId(schema) || types.has('number') || types.has('string'))) {
    const pool = pools[kind];
    const id = fc.oneof(
      { weight: 6, arbitrary: pool.length ? fc.constantFrom(...pool) : fc.constant(1) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 300 }) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 2_147_483_647 }) },
    );
    const nullable = types.has('null');
    const asType = fc
      .tuple(id, fc.boolean())
      .map(([v, asString]) =>
        types.has('number') && !(asString && types.has('string')) && !Number.isNaN(Number(v)) ? Number(v) : String(v),
      );
    return nullable ? fc.oneof({ weight: 8, arbitrary: asType }, { weight: 1, arbitrary: fc.constant(null) }) : asType;
  }
  if (isDecimal(schema)) return decimalFor(name);
  if (hasPattern(schema, DATE_TIME_PATTERN)) return dateTimeBetween(-100, 100);
  if (isDate(schema)) {
    const d = dateFor(name);
    return types.has('null') ? fc.oneof({ weight: 8, arbitrary: d }, { weight: 1, arbitrary: fc.constant(null) }) : d;
  }
  if (isIntegerId(schema)) return name === 'page_size' ? fc.integer({ min: 1, max: 100 }) : fc.integer({ min: 1, max: 4 });
  if (schema.anyOf || schema.oneOf) {
    const opts = branches(schema);
    const nonNull = opts.filter((b) => b.type !== 'null');
    const arbs = nonNull.map((b) => ({ weight: 4, arbitrary: valueFor(name, b, pools) }));
    if (nonNull.length < opts.length) arbs.push({ weight: 1, arbitrary: fc.constant(null) });
    return fc.oneof(...arbs);
  }
  switch (schema.type) {
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? -1000, -1000), max: Math.min(schema.maximum ?? 1000, 12) });
    case 'number':
      return decimalFor(name);
    case 'string': {
      if (isUrl(schema)) return fc.constantFrom(...LOOPBACK_URLS);
      const specific = patternsOf(schema).filter((p) => !isTextPattern(p));
      if (specific[0]) return fc.stringMatching(new RegExp(specific[0], 'u'));
      return textFor(name, schema);
    }
    case 'array': {
      const items = schema.items ?? {};
      const inner = kind
        ? valueFor(name, { anyOf: [{ type: 'number' }, { type: 'string', pattern: INTEGER_PATTERN }] }, pools)
        : valueFor(name, items, pools);
      return fc.array(inner, { maxLength: Math.min(schema.maxItems ?? 4, name === 'line_items' ? 4 : 5) });
    }
    case 'object': {
      if (schema.properties) return objectFor(schema, pools);
      const valueSchema = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : {};
      const key = kind
        ? fc.oneof(
            { weight: 5, arbitrary: fc.constantFrom(...(pools[kind].length ? pools[kind] : ['1'])).map(String) },
            { weight: 1, arbitrary: fc.integer({ min: 1, max: 999 }).map(String) },
          )
        : word;
      return fc.dictionary(key, valueFor(name, valueSchema, pools), { minKeys: 1, maxKeys: 3 });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** An object following `schema`: every required property, each optional one about half the time. */
export function objectFor(schema: JsonSchema, pools: Pools): fc.Arbitrary<Record<string, unknown>> {
  const props = schema.properties ?? {};
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, prop] of Object.entries(props)) model[name] = valueFor(name, prop, pools);
  return fc.record(model, { requiredKeys: schema.required ?? [] });
}

// ---- hostile values ----

const C0 = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i));
const C1 = Array.from({ length: 32 }, (_, i) => String.fromCharCode(0x80 + i));
/** Control characters no field accepts, multi-line or not. */
export const alwaysRefusedControls = [...C0.filter((c) => !'\t\n\r'.includes(c)), '\u007F', ...C1];
const loneSurrogates = ['\uD800', '\uDBFF', '\uDC00', '\uDFFF', '😀'.charAt(0), '😀'.charAt(1)];
const noncharacters = ['\uFFFE', '\uFFFF'];

function spliceInto(base: fc.Arbitrary<string>, bad: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(base, bad, fc.nat()).map(([s, c, at]) => {
    const i = s.length ? at % (s.length + 1) : 0;
    return s.slice(0, i) + c + s.slice(i);
  });
}

const nested = (depth: number, kind: 'array' | 'object') =>
  new RawJson(kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
const bigArray = (n: number, item = '1') => new RawJson(`[${new Array(n).fill(item).join(',')}]`);
const bigObject = (n: number) => new RawJson(`{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`);

/** Values every request property refuses, whatever its type: unstorable text, infinite numbers, shapes beyond the limits. */
export const refusedEverywhere: fc.Arbitrary<unknown> = fc.oneof(
  // NUL first: the one character PostgreSQL cannot store at all.
  { weight: 3, arbitrary: fc.oneof(spliceInto(word, fc.constant('\u0000')), fc.constantFrom('\u0000', 'a\u0000b', '\u0000'.repeat(10))) },
  { weight: 2, arbitrary: spliceInto(word, fc.constantFrom(...alwaysRefusedControls)) },
  { weight: 2, arbitrary: spliceInto(word, fc.constantFrom(...loneSurrogates)) },
  { weight: 1, arbitrary: spliceInto(word, fc.constantFrom(...noncharacters)) },
  { weight: 1, arbitrary: fc.constantFrom('\r', 'x\ry', '\u0085', '\u009B[31m', '\u001B[2J') },
  // Lengths count characters (code points, as varchar(n) does), so 5001 emoji are past every limit and 2600 are not.
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(10_001), '😀'.repeat(5001), 'é'.repeat(5001)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      new RawJson('1e400'),
      new RawJson('-1e400'),
      new RawJson('1e99999'),
      new RawJson('1e999999999'),
      new RawJson('-1e999999999'),
      new RawJson('9'.repeat(10_000)),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(33, 100, 5000, 20_000).chain((d) => fc.constantFrom(nested(d, 'array'), nested(d, 'object'))) },
  { weight: 1, arbitrary: fc.constantFrom(bigArray(1001), bigArray(5000), bigArray(1001, '{}'), bigObject(1001)) },
);

/** Edge-case numbers and numeric-looking strings: some valid somewhere, most not. */
export const numericEdges: fc.Arbitrary<unknown> = fc.constantFrom(
  new RawJson('1e308'),
  new RawJson('-1e308'),
  new RawJson('-0'),
  new RawJson('1e-400'),
  new RawJson('4.9e-324'),
  new RawJson('1e400'),
  new RawJson('123456789012345678901234567890'),
  new RawJson('-123456789012345678901234567890'),
  new RawJson('1.0000000000000000000001'),
  new RawJson('0.1e1'),
  new RawJson('1E+2'),
  9007199254740991,
  -9007199254740991,
  // 2^53, the first integer past the safe range (a literal 2^53 + 1 is this same number in JavaScript).
  9007199254740992,
  2147483647,
  2147483648,
  -2147483649,
  -1,
  0,
  -0.01,
  1.5,
  0.00001,
  99999999999.99,
  999999999999.99,
  1e12,
  '1e400',
  '-1e400',
  '1e-400',
  'NaN',
  'Infinity',
  '-Infinity',
  ' 1 ',
  '0x1F',
  '1_000',
  '',
  ' ',
  '١٢',
  '１２',
  '-0',
  '00012',
  '.5',
  '5.',
  '-.5',
  '1e-7',
  '+1',
  '1,5',
  '9'.repeat(400),
  `0.${'0'.repeat(300)}1`,
  // Exponents that would take a gigabyte to write out, ten thousand digits, and numbers JSON.parse rounds.
  '1e999999999',
  '1e500000000',
  '-1e999999999',
  '1e-999999999',
  '0e999999999',
  '-0.00',
  '1E+308',
  '-1E+308',
  '1.5e1',
  `1e${'9'.repeat(10_000)}`,
  `1e-${'9'.repeat(10_000)}`,
  `1e${'0'.repeat(10_000)}2`,
  '9'.repeat(10_000),
  `${'0'.repeat(10_000)}1`,
  `0.${'0'.repeat(10_000)}1`,
  new RawJson('1E+308'),
  new RawJson('-0.0e-999999999'),
  new RawJson('1e-999999999'),
  new RawJson('9'.repeat(10_000)),
  new RawJson(`0.${'0'.repeat(10_000)}1`),
  new RawJson(`1${'0'.repeat(10_000)}e-10000`),
  new RawJson('0.1000000000000000000001'),
  new RawJson('9007199254740993'),
);

/** Strings that are valid text but unusual: emoji, joiners, bidi controls, combining marks. */
export const unusualText: fc.Arbitrary<string> = fc.constantFrom(
  '😀',
  '👨‍👩‍👧‍👦',
  '🏳️‍🌈',
  '🇫🇷🇯🇵',
  'Z̷̛̫a̸l̷g̷o̶',
  '\u202Eevil',
  'a\u200Bb',
  '\uFEFFbom',
  '\u2028line\u2029para',
  'ﷺ',
  '\uD83D\uDE00'.repeat(100),
  "'; DROP TABLE partners; --",
  '%_\\',
  '<script>alert(1)</script>',
  '${7*7}',
  '   ',
  '',
);

export const wrongTypes: Record<string, unknown[]> = {
  string: ['x', '', '0'],
  number: [0, 1, -1, 1.5],
  boolean: [true, false],
  null: [null],
  array: [[], [1], [{}], ['a', 'b']],
  object: [{}, { a: 1 }, { '': '' }],
};

/** A value of a type the schema does not accept (there always is one: no request property accepts every JSON type). */
export function wrongTypeFor(schema: JsonSchema): fc.Arbitrary<unknown> {
  const accepted = typesOf(schema);
  const candidates = Object.entries(wrongTypes)
    .filter(([t]) => !accepted.has(t) && !(t === 'number' && accepted.has('integer')))
    .flatMap(([, vs]) => vs);
  return candidates.length ? fc.constantFrom(...candidates) : fc.constant(new RawJson('1e400'));
}

export const nonObjectBodies = fc.constantFrom(
  new RawJson('[]'),
  new RawJson('[{"org_id":1}]'),
  new RawJson('"org_id"'),
  new RawJson('1'),
  new RawJson('null'),
  new RawJson('true'),
  new RawJson('-0'),
  new RawJson('1e400'),
);

const extraKeys = [
  'zz_extra',
  'constructor',
  'toString',
  'hasOwnProperty',
  'prototype',
  'valueOf',
  '',
  ' ',
  'org_id ',
  'ORG_ID',
  'a\u0000b',
  '\uD800',
];

export interface Mutation {
  label: string;
  apply(body: Body): void;
}

const set = (label: string, field: string, value: unknown): Mutation => ({
  label: `${label} ${field}`,
  apply(body) {
    (body.value as Record<string, unknown>)[field] = value;
  },
});

function propsOf(op: OperationCase, exclude: readonly string[]): Array<[string, JsonSchema]> {
  return Object.entries(op.schema.properties ?? {}).filter(([n]) => !exclude.includes(n));
}

/**
 * Mutations after which the request must be refused, whatever else the body holds: they leave the
 * fields that route it alone, so the operation stays the one under test (or becomes an unknown action).
 */
export function refusingMutation(op: OperationCase): fc.Arbitrary<Mutation> {
  const props = propsOf(op, op.pathSelectors);
  const required = (op.schema.required ?? []).filter((n) => !op.pathSelectors.includes(n));
  const arbs: Array<fc.MaybeWeightedArbitrary<Mutation>> = [
    // Mostly one bad value in an otherwise plausible body: the case most likely to reach the database.
    { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...props), refusedEverywhere).map(([[n], v]) => set('refused value in', n, v)) },
    fc.constantFrom(...props).chain(([n, s]) => wrongTypeFor(s).map((v) => set('wrong type for', n, v))),
    fc.constantFrom(2, '2').map((org) => set('another organization in', 'org_id', org)),
    fc.constantFrom(0, -1, '0', 'abc', '1.5', 2147483648, null, [], {}, new RawJson('1e400')).map((v) => set('bad', 'org_id', v)),
    fc
      .constantFrom(...extraKeys)
      .chain((k) => fc.constantFrom(nested(40, 'object'), bigArray(1500)).map((v) => set('pathological extra field', k, v))),
    nonObjectBodies.map((v): Mutation => ({
      label: 'non-object body',
      apply: (b) => {
        b.value = v;
      },
    })),
  ];
  if (required.length)
    arbs.push(
      fc.constantFrom(...required).map((n): Mutation => ({
        label: `without ${n}`,
        apply: (b) => {
          delete (b.value as Record<string, unknown>)[n];
        },
      })),
    );
  const lineItems = op.schema.properties?.['line_items']?.items?.properties;
  if (lineItems) {
    arbs.push(
      fc.tuple(fc.constantFrom(...Object.keys(lineItems)), refusedEverywhere).map(([n, v]): Mutation => ({
        label: `refused value in line_items.0.${n}`,
        apply(b) {
          const body = b.value as Record<string, unknown>;
          const first =
            Array.isArray(body['line_items']) && body['line_items'][0] && typeof body['line_items'][0] === 'object'
              ? body['line_items'][0]
              : {};
          body['line_items'] = [{ ...(first as object), [n]: v }];
        },
      })),
    );
  }
  if (op.pathActions.length) {
    arbs.push(
      fc
        .oneof(
          word,
          fc.constantFrom('', 'CREATE', ' create', 'create\u0000', 'delete ', '__proto__'),
          fc.constantFrom(1, null, true, [], {}, ['create'], nested(5000, 'array')),
        )
        .filter((a) => !op.pathActions.includes(a as string))
        .map((a) => set('unknown action', 'action', a)),
    );
  }
  if (op.pathFlags.length > 1 && 'flag' in op.select) {
    const own = op.select.flag;
    arbs.push(fc.constantFrom(...op.pathFlags.filter((f) => f !== own)).map((f) => set('second flag', f, true)));
  }
  return fc.oneof(...arbs);
}

/** Any hostile change, refused or not: everything `refusingMutation` does plus values that may well be accepted. */
export function hostileMutation(op: OperationCase): fc.Arbitrary<Mutation> {
  const props = propsOf(op, []);
  const all = props.length ? props : ([['org_id', {}]] as Array<[string, JsonSchema]>);
  return fc.oneof(
    { weight: 4, arbitrary: refusingMutation(op) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...all), numericEdges).map(([[n], v]) => set('numeric edge in', n, v)) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...all), unusualText).map(([[n], v]) => set('unusual text in', n, v)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...all), fc.constantFrom(...Object.values(wrongTypes).flat()))
        .map(([[n], v]) => set('any type in', n, v)),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...all).map(([n]): Mutation => ({
        label: `without ${n}`,
        apply: (b) => {
          delete (b.value as Record<string, unknown>)[n];
        },
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(
            ...extraKeys,
            'delete',
            'action',
            'validate_invoice',
            'cancel_invoice',
            'product_id',
            'partner_id',
            'calculate_total',
          ),
          fc.jsonValue({ maxDepth: 3 }),
        )
        .map(([k, v]) => set('extra field', k, v)),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '"__proto__":{"org_id":2}',
          '"__proto__":null',
          '"__proto__":[1]',
          '"constructor":{"prototype":{"x":1}}',
          '"org_id":2',
          '"org_id":"1","org_id":1',
        )
        .map((m): Mutation => ({
          label: `raw member ${m}`,
          apply: (b) => {
            b.rawMembers = [...(b.rawMembers ?? []), m];
          },
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...all), fc.constantFrom(33, 32, 31, 200, 20_000), fc.constantFrom<'array' | 'object'>('array', 'object'))
        .map(([[n], d, k]) => set(`nested ${d} deep in`, n, nested(d, k))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...all), fc.constantFrom(999, 1000, 1001, 5000))
        .map(([[n], size]) => set(`array of ${size} in`, n, bigArray(size))),
    },
  );
}

/** The largest value each decimal field accepts, by its name: quantities and unit prices below 10^10, money below 10^12, percentages up to 100. */
function boundFor(name: string, negative: boolean): string | number {
  if (name === 'tax_rate' || name === 'discount') return negative ? 0 : 100;
  // A price is a 4-decimal unit price on a line but 2-decimal money on a product: this one is both.
  if (name === 'price') return negative ? '0.01' : '9999999999.99';
  if (/quantity|stock|qty/.test(name)) return negative ? '0.0001' : '9999999999.9999';
  return negative ? '-999999999999.99' : '999999999999.99';
}

/** Every decimal of the body (and of its lines) at the edge of what it accepts: products and sums that may overflow a column. */
export function amountsAtBounds(op: OperationCase): fc.Arbitrary<Mutation> | undefined {
  const props = Object.entries(op.schema.properties ?? {})
    .filter(([, p]) => isDecimal(p))
    .map(([n]) => n);
  const line = op.schema.properties?.['line_items']?.items;
  const lineProps = Object.entries(line?.properties ?? {})
    .filter(([, p]) => isDecimal(p))
    .map(([n]) => n);
  const records = Object.entries(op.schema.properties ?? {})
    .filter(([, p]) => typeof p.additionalProperties === 'object' && isDecimal(p.additionalProperties))
    .map(([n]) => n);
  if (props.length + lineProps.length + records.length === 0) return undefined;
  return fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 40 })).map(([negative, lines]): Mutation => ({
    label: `amounts at their ${negative ? 'lower' : 'upper'} bounds`,
    apply(b) {
      const body = b.value as Record<string, unknown>;
      for (const n of props) body[n] = boundFor(n, negative);
      for (const n of records) {
        const rec = body[n] && typeof body[n] === 'object' ? (body[n] as Record<string, unknown>) : { '1': 0 };
        body[n] = Object.fromEntries(Object.keys(rec).map((k) => [k, boundFor(n, negative)]));
      }
      if (lineProps.length && Array.isArray(body['line_items'])) {
        const first = (body['line_items'][0] ?? {}) as Record<string, unknown>;
        const bounded = { ...first, ...Object.fromEntries(lineProps.map((n) => [n, boundFor(n, negative)])) };
        body['line_items'] = new Array(lines).fill(bounded);
      }
    },
  }));
}

/** Many lines (legal up to 500, refused past it) for the operations that take them. */
export function manyLines(op: OperationCase, pools: Pools): fc.Arbitrary<Mutation> | undefined {
  const item = op.schema.properties?.['line_items']?.items;
  if (!item) return undefined;
  return fc
    .tuple(fc.constantFrom(60, 500, 501), objectFor(item, pools))
    .map(([n, line]) => set(`${n} lines in`, 'line_items', new Array(n).fill(line)));
}

// ---- conformance: bodies the document accepts, and bodies it refuses ----

/**
 * A value the schema accepts, generated from its keywords alone (types, const and enum, bounds,
 * multipleOf, lengths, patterns, formats, item and property counts), with the property's name
 * choosing ids from the pools so that some requests reach real rows. Where a rule is beyond JSON
 * Schema and the document says so (an IBAN's checksum, `format: iban`; a time zone the database
 * knows; a PNG that draws), the value is one that keeps it. Callers still validate the whole body
 * against the document: what the document accepts is the document's to say, not this generator's.
 */
export function conformingValue(name: string, schema: JsonSchema, pools: Pools): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (name === 'org_id') return fc.constantFrom(1, '1', ' 0001 ');
  const kind = idKinds[name];
  if (kind && isIntegerId(schema) && pools[kind].length) {
    const id = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...pools[kind]) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 2_147_483_647 }) },
    );
    return fc.tuple(id, fc.boolean()).map(([v, asString]) => (asString ? String(v) : Number(v)));
  }
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((b) => conformingValue(name, { ...b, description: schema.description }, pools)));
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => conformingValue(name, { ...schema, type }, pools)));
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number':
      return conformingNumber(name, schema);
    case 'string':
      return conformingString(name, schema, pools);
    case 'array': {
      const items = kind ? { ...(schema.items ?? {}) } : (schema.items ?? {});
      const max = Math.min(schema.maxItems ?? 3, 3);
      return fc.array(conformingValue(name, items, pools), { minLength: Math.min(schema.minItems ?? 0, max), maxLength: max });
    }
    case 'object':
      return conformingObject(name, schema, pools);
    default:
      return fc.constant(null);
  }
}

function conformingNumber(name: string, schema: JsonSchema): fc.Arbitrary<number> {
  const step = schema.multipleOf ?? 1;
  const scale = step < 1 ? Math.round(-Math.log10(step)) : 0;
  const lowest = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + step : -1e6);
  const highest = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - step : 1e6);
  // Mostly everyday amounts, so that documents pass their business rules; now and then the edges.
  const everyday = name === 'quantity' ? [0.5, 50] : /rate|discount/.test(name) ? [0, 30] : [0, 5000];
  const lo = Math.max(lowest, everyday[0] as number);
  const hi = Math.min(highest, everyday[1] as number);
  const f = 10 ** scale;
  const within = (a: number, b: number) =>
    fc.integer({ min: Math.ceil(a * f), max: Math.floor(b * f) }).map((n) => Number((n / f).toFixed(scale)));
  return fc.oneof(
    { weight: 8, arbitrary: lo <= hi ? within(lo, hi) : within(lowest, highest) },
    { weight: 1, arbitrary: fc.constantFrom(lowest, highest) },
  );
}

const TIME_ZONES = Intl.supportedValuesOf('timeZone');
const IBAN_COUNTRIES = ['FR', 'DE', 'NZ', 'GB', 'NL'];

/** An IBAN with correct check digits (ISO 13616 mod 97), sometimes spaced and in lower case. */
const validIban = fc
  .tuple(fc.constantFrom(...IBAN_COUNTRIES), fc.stringMatching(/^[0-9A-Z]{11,20}$/), fc.boolean())
  .map(([country, account, spaced]) => {
    const digits = (account + country + '00').replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
    let remainder = 0;
    for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
    const iban = `${country}${String(98 - remainder).padStart(2, '0')}${account}`;
    return spaced
      ? iban
          .replace(/(.{4})/g, '$1 ')
          .trim()
          .toLowerCase()
      : iban;
  });

/** A 1×1 RGBA PNG, the smallest logo that draws. */
const TINY_PNG = makePng({ width: 1, height: 1 }).toString('base64');

function conformingString(name: string, schema: JsonSchema, pools: Pools): fc.Arbitrary<string> {
  const patterns = patternsOf(schema).map((p) => new RegExp(p, 'u'));
  const keeps = (s: string) => {
    const length = [...s].length;
    return length >= (schema.minLength ?? 0) && length <= (schema.maxLength ?? Infinity) && patterns.every((p) => p.test(s));
  };
  if (schema.format === 'iban') return validIban.filter(keeps);
  if (schema.contentMediaType === 'image/png') return fc.constant(TINY_PNG);
  if (name === 'time_zone') return fc.constantFrom(...TIME_ZONES).filter(keeps);
  if (isUrl(schema)) return fc.constantFrom(...LOOPBACK_URLS).filter(keeps);
  const kind = idKinds[name];
  if (kind && pools[kind].length) return fc.constantFrom(...pools[kind].map(String)).filter(keeps);
  const specific = patternsOf(schema).filter((p) => !isTextPattern(p));
  // The most telling pattern makes the value (a date's, a code's); the others and the lengths filter it.
  const anchored = specific.find((p) => p.startsWith('^'));
  // A format the document defines in words (a Peppol id's scheme check) keeps only the values it admits.
  const admits = schema.format && documentFormats[schema.format];
  const base = anchored
    ? fc.stringMatching(new RegExp(anchored, 'u')).filter((s) => !admits || admits(s))
    : fc.oneof(
        { weight: 4, arbitrary: word },
        { weight: 1, arbitrary: unicodeText },
        { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
      );
  const max = schema.maxLength ?? 200;
  return base.map((s) => [...s].slice(0, max).join('')).filter(keeps);
}

function conformingObject(name: string, schema: JsonSchema, pools: Pools): fc.Arbitrary<Record<string, unknown>> {
  if (schema.properties) {
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [prop, sub] of Object.entries(schema.properties)) model[prop] = conformingValue(prop, sub, pools);
    return fc.record(model, { requiredKeys: schema.required ?? [] });
  }
  const kind = idKinds[name];
  const keySchema = schema.propertyNames ?? { type: 'string' };
  const key = (kind && pools[kind].length ? fc.constantFrom(...pools[kind].map(String)) : conformingString(name, keySchema, pools)).filter(
    (k) => patternsOf(keySchema).every((p) => new RegExp(p, 'u').test(k)),
  );
  const values = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : {};
  const minKeys = schema.minProperties ?? 0;
  return fc.dictionary(key, conformingValue(name, values, pools), {
    minKeys,
    maxKeys: Math.max(minKeys, Math.min(schema.maxProperties ?? 3, 3)),
  });
}

/** A change after which a property breaks a rule its schema states (the caller confirms the document refuses the body). */
export interface Violation {
  label: string;
  field: string;
  value: unknown;
}

/** Values that break what `schema` says: past each bound, length and count, outside each pattern and enum, of another type. */
export function violationsOf(schema: JsonSchema): unknown[] {
  const out: unknown[] = [];
  const places = schema['x-decimal-places'];
  for (const b of branches(schema)) {
    if (b.maxLength !== undefined) out.push('x'.repeat(b.maxLength + 1), '😀'.repeat(b.maxLength + 1));
    if (b.minLength) out.push('', ' ');
    if (b.minimum !== undefined) out.push(b.minimum - (b.multipleOf ?? 1), String(b.minimum - (b.multipleOf ?? 1)));
    if (b.maximum !== undefined) out.push(b.maximum + (b.multipleOf ?? 1), String(b.maximum + (b.multipleOf ?? 1)));
    if (b.exclusiveMinimum !== undefined) out.push(b.exclusiveMinimum, b.exclusiveMinimum - 1);
    if (b.exclusiveMaximum !== undefined) out.push(b.exclusiveMaximum, b.exclusiveMaximum * 10);
    if (b.multipleOf !== undefined) out.push(1 + b.multipleOf / 10, `1.${'0'.repeat(Math.round(-Math.log10(b.multipleOf)))}1`);
    // A decimal's whole-number form: a fraction finer than its scale, as a number and as a string; one
    // within its scale the server also reads, as the schema says beside it (`x-decimal-places`).
    if (places !== undefined && b.type === 'integer') out.push(Number(`1.${'0'.repeat(places)}1`), `1.${'0'.repeat(places)}1`);
    if (b.type === 'integer') out.push(...(places === undefined ? [1.5, '1.5'] : []), 0, '0', -1, 2_147_483_648, '2147483648');
    if (b.format === 'date' || patternsOf(b).some((p) => p.includes('02-29')))
      out.push(
        '2000-02-30',
        '2023-02-29',
        '1900-02-29',
        '2024-13-01',
        '2024-04-31',
        '1899-12-31',
        '2024-1-5',
        '2024-01-01T10:00:00Z',
        '2024-01-01T24:00:00',
      );
    if (b.format === 'iban') out.push('FR7630006000011234567890188', 'XX00 1234 5678 9012 3', 'FR76');
    if (b.format === 'peppol-id') out.push('0151:12345678901', '0208:0123456789', '0088:1234567890123', '0192:123456789');
    if (patternsOf(b).length) out.push('a\u0001b', 'a\u0000', '\uD800x', 'x\uFFFF', '#!?', '@', '   ', 'a b@c', 'zz', 'ZZZZ9999');
    if (b.enum) out.push('not-one-of-them', '');
    if (b.minProperties) out.push({});
    if (b.maxProperties !== undefined) out.push(Object.fromEntries(Array.from({ length: b.maxProperties + 1 }, (_, i) => [`L${i}`, 1])));
    if (b.maxItems !== undefined) out.push(new Array(b.maxItems + 1).fill(1));
  }
  out.push(...wrongTypeValues(schema));
  return out;
}

function wrongTypeValues(schema: JsonSchema): unknown[] {
  const accepted = typesOf(schema);
  return Object.entries(wrongTypes)
    .filter(([t]) => !accepted.has(t) && !(t === 'number' && accepted.has('integer')) && !(t === 'string' && accepted.has('string')))
    .map(([, vs]) => vs[vs.length - 1]);
}
