import { corsHeaders, envelope, errorBodySchema, errorCodes } from './envelope';
import { exampleStory, type ExampleStep } from './examples';
import { events, knownPaths, operations, resolveCandidates } from './catalogue';
import { jsonSchemaOf as schemaOf } from './json-schema';
import { requestShapeLimits } from './shape';
import { domainPrefix, operationCost, serviceNames, type Operation, type Selector } from './operation';

function envelopeOf(body: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    required: ['statusCode', 'headers', 'body'],
    properties: {
      statusCode: { type: 'integer' },
      headers: { type: 'object', additionalProperties: { type: 'string' } },
      body,
    },
  };
}

type JsonSchema = Record<string, unknown>;

/**
 * What a body of `op` leaves out on a path, so that the router (`resolveOperation`) picks no other
 * operation of the path before it: no `action` where the path has actions, no other flag set to
 * true, no field (other than null) that an earlier candidate is selected by, and nothing at all
 * after an earlier default. As one object schema, whose description says what each member would
 * select, or `false` when an earlier default takes every body; undefined when nothing need be left out.
 */
function exclusionOf(op: Operation, candidates: readonly Operation[]): JsonSchema | false | undefined {
  if ('action' in op.select) return undefined;
  const properties: Record<string, JsonSchema | false> = {};
  const why: string[] = [];
  const actions = candidates.filter((c) => 'action' in c.select).map((c) => c.name);
  // `false` rather than `not: {}`: a generated client types the member as never there.
  if (actions.length) {
    properties['action'] = false;
    why.push(`no \`action\` (any selects another operation: ${actions.join(', ')})`);
  }
  const before = candidates.slice(0, candidates.indexOf(op));
  for (const other of candidates) {
    if (other === op) continue;
    if ('flag' in other.select) {
      properties[other.select.flag] = { not: { const: true } };
      why.push(`\`${other.select.flag}\` not true (true selects ${other.name})`);
    } else if ('present' in other.select && before.includes(other)) {
      properties[other.select.present] = { type: 'null' };
      why.push(`\`${other.select.present}\` absent or null (a value selects ${other.name})`);
    } else if ('default' in other.select && before.includes(other)) return false;
  }
  return why.length
    ? { type: 'object', description: `Leaves out what selects another operation of this path: ${why.join('; ')}.`, properties }
    : undefined;
}

/** The names of an operation's request and reply schemas under `components/schemas`: one named type each for a generator. */
export const requestSchemaName = (op: Operation): string => `${op.name}.request`;
export const replySchemaName = (op: Operation): string => `${op.name}.reply`;
const refTo = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/**
 * An operation's request as a named schema: titled with its name, described by its summary and the
 * rules beyond the schema, with the selector that routes a body to it (`x-selector`). Every path
 * that accepts the operation refers to this one schema.
 */
function requestComponent(op: Operation): JsonSchema {
  const schema = schemaOf(op.request, 'input');
  const rules = op.rules?.length
    ? `\n\nBeyond this schema, refused with 400 \`validation_failed\` naming the field:\n${op.rules.map((r) => `- \`${r.field}\`: ${r.rule}`).join('\n')}`
    : '';
  // The shape limits apply before any schema (shape.ts); the body's own key count is the one a schema can state.
  return {
    title: op.name,
    // A request is an object, whether its schema says so itself or through its alternatives (a report's).
    type: 'object',
    ...schema,
    description: `${op.summary}. Costs ${operationCost(op)} against the organization's rate and concurrency limits (\`x-cost\`).${op.maxBodyBytes ? ` Carries a file: its body may be up to ${op.maxBodyBytes} bytes (\`x-max-body-bytes\`).` : ''}${op.timeoutMs ? ` Its work is long by nature: the gateway waits up to ${op.timeoutMs / 1000} s for its answer (\`x-timeout-ms\`).` : ''}${rules}`,
    maxProperties: requestShapeLimits.maxObjectKeys,
    'x-selector': op.select,
    'x-cost': operationCost(op),
    ...(op.maxBodyBytes ? { 'x-max-body-bytes': op.maxBodyBytes } : {}),
    ...(op.timeoutMs ? { 'x-timeout-ms': op.timeoutMs } : {}),
    ...(op.rules?.length ? { 'x-rules': op.rules } : {}),
  };
}

function replyComponent(op: Operation): JsonSchema {
  return { title: `${op.name} reply`, ...schemaOf(op.reply, 'input'), description: `The \`body\` of a 200 answer to \`${op.name}\`.` };
}

/**
 * One operation of a path as a `oneOf` alternative: a reference to its request schema and, where a
 * neighbour could claim the body, the members it leaves out (`exclusionOf`), the two under `allOf`:
 * many tools drop what stands beside a `$ref`, none drops an `allOf` member.
 */
function alternativeOf(op: Operation, candidates: readonly Operation[]): JsonSchema {
  const exclusion = exclusionOf(op, candidates);
  if (exclusion === undefined) return refTo(requestSchemaName(op));
  return { title: op.name, allOf: [refTo(requestSchemaName(op)), exclusion] };
}

/**
 * Where every operation of a path is chosen by its `action` constant, the `action` value names the
 * alternative: a discriminator mapping each value to its operation's request schema. Elsewhere a flag
 * or a field's presence chooses, which an OpenAPI 3.1 discriminator (a string property every
 * alternative requires) cannot express: each request schema states its selector (`x-selector`) and
 * the `not` of each alternative keeps the `oneOf` exact.
 */
function discriminatorOf(candidates: readonly Operation[]): JsonSchema | undefined {
  if (!candidates.every((op) => 'action' in op.select)) return undefined;
  const mapping = Object.fromEntries(
    candidates.map((op) => [(op.select as { action: string }).action, `#/components/schemas/${requestSchemaName(op)}`]),
  );
  return { propertyName: 'action', mapping };
}

function requestSchemaOf(ops: readonly Operation[]): JsonSchema {
  const discriminator = discriminatorOf(ops);
  return { oneOf: inCatalogueOrder(ops).map((op) => alternativeOf(op, ops)), ...(discriminator ? { discriminator } : {}) };
}

/** Operations as the catalogue declares them (create, edit, delete …), the order a reader expects, not the router's. */
const inCatalogueOrder = (ops: readonly Operation[]) => operations.filter((op) => ops.includes(op));

/** The alternatives of a reply that is a union (a report's), else the reply itself. */
const branchesOf = (schema: JsonSchema): JsonSchema[] => (schema['anyOf'] ?? schema['oneOf'] ?? [schema]) as JsonSchema[];

/** The members every alternative of a reply requires. */
function requiredOf(schema: JsonSchema): string[] {
  const [first, ...rest] = branchesOf(schema).map((b) => (b['required'] ?? []) as string[]);
  return (first ?? []).filter((k) => rest.every((r) => r.includes(k)));
}

/** The members any alternative of a reply may have. */
const propertyNamesOf = (schema: JsonSchema): string[] => [
  ...new Set(branchesOf(schema).flatMap((b) => Object.keys((b['properties'] ?? {}) as JsonSchema))),
];

/**
 * The success reply of a path, told apart by its members: operations whose replies require the same
 * members share an alternative (create and edit both answer `{ message, partner }`: the `anyOf` of
 * their reply schemas, titled with their names). Several alternatives are `oneOf`, each leaving out
 * the members that identify the others (a member another requires and it has none of), under
 * `allOf` beside its reply schema as a request alternative does, so a reply matches exactly one.
 */
export function replySchemaOf(ops: readonly Operation[]): JsonSchema {
  const shapes: Array<{ ops: Operation[]; schemas: JsonSchema[] }> = [];
  const membersOf = (schema: JsonSchema) => JSON.stringify([...requiredOf(schema)].sort());
  for (const op of ops) {
    const schema = schemaOf(op.reply, 'input');
    const shape = shapes.find((s) => membersOf(s.schemas[0] as JsonSchema) === membersOf(schema));
    if (shape) {
      shape.ops.push(op);
      shape.schemas.push(schema);
    } else shapes.push({ ops: [op], schemas: [schema] });
  }
  const titleOf = (shape: (typeof shapes)[number]) =>
    shape.ops.length === 1 ? `${(shape.ops[0] as Operation).name} reply` : shape.ops.map((op) => op.name).join(' | ');
  // Titled where it is the alternative itself; under `allOf` the alternative around it carries the title.
  const bodyOf = (shape: (typeof shapes)[number], titled = true): JsonSchema =>
    shape.ops.length === 1
      ? refTo(replySchemaName(shape.ops[0] as Operation))
      : { ...(titled ? { title: titleOf(shape) } : {}), anyOf: shape.ops.map((op) => refTo(replySchemaName(op))) };
  if (shapes.length === 1) return bodyOf(shapes[0] as (typeof shapes)[number]);
  const propertiesOf = (shape: (typeof shapes)[number]) => shape.schemas.flatMap(propertyNamesOf);
  return {
    oneOf: shapes.map((shape) => {
      const own = propertiesOf(shape);
      const others = [
        ...new Set(
          shapes
            .filter((o) => o !== shape)
            .flatMap((o) => requiredOf(o.schemas[0] as JsonSchema))
            .filter((k) => !own.includes(k)),
        ),
      ];
      if (!others.length) return bodyOf(shape);
      const absent = Object.fromEntries(others.map((k) => [k, false]));
      const description = `Leaves out what another reply of this path has: ${others.map((k) => `\`${k}\``).join(', ')}.`;
      return { title: titleOf(shape), allOf: [bodyOf(shape, false), { type: 'object', description, properties: absent }] };
    }),
  };
}

/** The statuses other than 400 a refusal may carry, and the codes each comes with (docs/api.md, "Responses"). */
const otherRefusals: Array<{ status: number; codes: string[]; writesOnly?: boolean; description: string; headers?: JsonSchema }> = [
  { status: 401, codes: ['unauthorized'], description: 'No API key, or an unknown or revoked one' },
  { status: 403, codes: ['forbidden'], description: 'The API key belongs to another organization than `org_id`' },
  {
    status: 409,
    codes: ['idempotency_conflict'],
    writesOnly: true,
    description: 'A request with this Idempotency-Key is still running; retry later with the same key and body',
  },
  {
    status: 413,
    codes: ['payload_too_large'],
    description: 'The body is over the size limit (1 MiB, or what an operation carrying a file states in `x-max-body-bytes`)',
  },
  {
    status: 422,
    codes: ['idempotency_key_reused'],
    writesOnly: true,
    description:
      'This Idempotency-Key was already used with another operation or another body; nothing was done: send the request with a new key',
  },
  {
    status: 429,
    codes: ['rate_limited'],
    description:
      "Over the organization's request rate or its requests in flight; nothing was done: retry after the Retry-After header's seconds",
    headers: {
      'Retry-After': { description: 'Seconds to wait, at least 1', schema: { type: 'string', pattern: '^[1-9][0-9]*$' } },
      RateLimit: { description: 'The IETF RateLimit field of the policy that refused: `"reads";r=0;t=1`', schema: { type: 'string' } },
      'RateLimit-Policy': { description: 'The policy that refused: `"reads";q=100;w=1`', schema: { type: 'string' } },
    },
  },
  { status: 500, codes: ['internal_error'], description: 'A bug: `request_id` to quote' },
  {
    status: 503,
    codes: ['service_unavailable', 'outcome_unknown'],
    description:
      'The broker, the database or the service is unavailable (nothing was done), or a write lost its answer (`outcome_unknown`: retry with the same Idempotency-Key)',
  },
  {
    status: 504,
    codes: ['timeout', 'outcome_unknown'],
    description:
      'No answer in time: a read was not executed; a write may have been (`outcome_unknown`: retry with the same Idempotency-Key)',
  },
];

/** Every other code is a business refusal, answered 400 (docs/api.md), so a code added to the envelope is declared at once. */
const refusals = [
  {
    status: 400,
    codes: errorCodes.filter((c) => c !== 'method_not_allowed' && !otherRefusals.some((r) => r.codes.includes(c))) as string[],
    writesOnly: false,
    description:
      'Refused: a field is missing, mistyped or out of range (`validation_failed`, with `errors[]` naming each field), the body is not JSON, the action is unknown, or a business rule refuses it (`not_found`, `invalid_state`, `duplicate` ...); nothing was done',
  },
  ...otherRefusals,
];

/**
 * The refusals a path may answer. `writes` names its writing operations: only they take the
 * Idempotency-Key statuses (409, 422) and `outcome_unknown`; on a path that also reads
 * (`mixed`), those statuses name the operations they concern.
 */
function refusalResponses(writes: readonly string[], mixed: boolean): Record<string, unknown> {
  const write = writes.length > 0;
  const errorBody = schemaOf(errorBodySchema, 'output');
  const responses: Record<string, unknown> = {};
  for (const r of refusals) {
    if (r.writesOnly && !write) continue;
    // Only a write's outcome can be unknown.
    const codes = r.codes.filter((c) => write || c !== 'outcome_unknown');
    const properties = { ...(errorBody['properties'] as Record<string, unknown>), code: { type: 'string', enum: codes } };
    const concerns = r.writesOnly || codes.includes('outcome_unknown');
    const only =
      mixed && concerns ? ` (${r.writesOnly ? '' : '`outcome_unknown`: '}writes only: ${writes.map((w) => `\`${w}\``).join(', ')})` : '';
    responses[String(r.status)] = {
      description: `${r.description}${only}`,
      ...('headers' in r && r.headers ? { headers: r.headers } : {}),
      content: { 'application/json': { schema: envelopeOf({ ...errorBody, properties }) } },
    };
  }
  return responses;
}

/**
 * What an Idempotency-Key may be: 1 to 255 printable ASCII characters, neither first nor last a space
 * (HTTP trims a header value's surrounding spaces, so the server would never see them). The gateway
 * checks it on every operation.
 */
export const idempotencyKeyPattern = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;

/** Idempotency-Key as the gateway checks it on every operation; a read checks it and otherwise ignores it. */
const idempotencyKeyHeader = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'On a write: the same key and body within 24 h returns the first answer without a second effect (docs/api.md). A read ignores a well-formed key; any request with a malformed one is refused with 400.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: idempotencyKeyPattern.source },
};

/** How a body selects the operation, in words a reader of the reference page follows. */
function selectionOf(select: Selector): string {
  if ('action' in select) return `\`"action": "${select.action}"\``;
  if ('flag' in select) return `\`"${select.flag}": true\``;
  if ('present' in select) return `\`${select.present}\` present (not null)`;
  return 'none of the others selected (the default)';
}

/** Where Swagger UI's deep link (`#/<tag>/<operationId>`) finds a path. */
const operationIdOf = (path: string) => path.replace(/\W+/g, '_').replace(/^_/, '');
const linkTo = (path: string, service: string) => `[${path}](#/${service}/${operationIdOf(path)})`;

/**
 * A path's operations for a reader: each operation whose canonical path this is, once, with its
 * summary, how a body selects it, whether it writes, its schemas and its rules; then the operations
 * accepted here whose canonical path is another, named with a link there rather than repeated.
 */
function pathDescription(path: string, ops: readonly Operation[]): string {
  const own = inCatalogueOrder(ops).filter((op) => op.paths[0] === path);
  const noted = inCatalogueOrder(ops).filter((op) => op.paths[0] !== path);
  const sections = own.map((op) => {
    const lines = [
      `#### \`${op.name}\``,
      '',
      `${op.summary}.`,
      '',
      `- Chosen by: ${selectionOf(op.select)}`,
      op.write
        ? '- Writes: send an `Idempotency-Key`; the same key and body within 24 h answers again without a second effect'
        : '- Reads: changes nothing',
      `- Request: \`${requestSchemaName(op)}\`; reply: \`${replySchemaName(op)}\`; example: \`${op.name}\` in the request body's examples`,
    ];
    if (op.domainWide) lines.push(`- Also accepted on every other path of ${domainPrefix[op.service]}, which names it and links here`);
    if (op.rules?.length) {
      lines.push('- Refused with 400 `validation_failed` naming the field, beyond the schema:');
      lines.push(...op.rules.map((r) => `  - \`${r.field}\`: ${r.rule}`));
    }
    return lines.join('\n');
  });
  const intro = ops.length > 1 ? `${ops.length} operations share this path; the body chooses one: ${choosers(ops)}.` : '';
  const elsewhere = noted.length
    ? [
        '#### Also accepted here',
        '',
        ...noted.map((op) => `- \`${op.name}\` (${selectionOf(op.select)}): see ${linkTo(op.paths[0] as string, op.service)}`),
      ].join('\n')
    : '';
  return [intro, ...sections, elsewhere, 'The trailing slash is optional.'].filter(Boolean).join('\n\n');
}

/** How the router tells a path's operations apart, strongest first, in the terms the path uses. */
function choosers(ops: readonly Operation[]): string {
  const has = (kind: string) => ops.some((op) => kind in op.select);
  const ways = [
    has('action') ? 'its `action`' : '',
    has('flag') ? 'a flag set to true' : '',
    has('present') ? 'a field present' : '',
    has('default') ? 'the default' : '',
  ].filter(Boolean);
  return ways.join(', else ');
}

/** The collapsed line of a path: its operation's summary, or the names of its operations (the domain is the tag above). */
function pathSummary(path: string, ops: readonly Operation[]): string {
  const own = inCatalogueOrder(ops).filter((op) => op.paths[0] === path);
  if (own.length === 1) return (own[0] as Operation).summary;
  return own.map((op) => op.name.slice(op.name.indexOf('.') + 1)).join(', ');
}

/** A rendered file's base64 is shown cut short (it runs to kilobytes): said so beside the example. */
function cutShort(e: ExampleStep): { description?: string } {
  const content = e.reply['content_base64'];
  return typeof content === 'string' && content.endsWith('…') ? { description: '`content_base64` is cut short here.' } : {};
}

/** OpenAPI 3.1 document generated from the operation catalogue, so it cannot drift from routing. */
export function buildOpenApi(version = '0.1.0'): Record<string, unknown> {
  const routed = operations.filter((op) => op.paths.length > 0);
  const story = exampleStory();
  // An operation's example is its first step in the story; later ones only set the scene for others.
  const exampleOf = (op: Operation): ExampleStep => {
    const found = story.find((s) => s.operation === op.name);
    if (!found) throw new Error(`${op.name} has no step in the example story (examples.ts)`);
    return found;
  };
  const examplesOf = (ops: readonly Operation[], value: (e: ExampleStep) => unknown) =>
    Object.fromEntries(ops.map((op) => [op.name, { summary: op.name, ...cutShort(exampleOf(op)), value: value(exampleOf(op)) }]));
  const paths: Record<string, unknown> = {};
  for (const path of knownPaths()) {
    const ops = resolveCandidates(path);
    const writes = ops.filter((op) => op.write).map((op) => op.name);
    const own = inCatalogueOrder(ops).filter((op) => op.paths[0] === path);
    paths[path] = {
      post: {
        operationId: operationIdOf(path),
        // One tag per domain, so a reader (and the /docs page) finds each domain's operations together.
        tags: [...new Set(ops.map((op) => op.service))],
        summary: pathSummary(path, ops),
        description: pathDescription(path, ops),
        security: [{ bearerAuth: [] }],
        parameters: [idempotencyKeyHeader, { name: 'language', in: 'header', required: false, schema: { type: 'string' } }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: requestSchemaOf(ops), examples: examplesOf(own, (e) => e.request) } },
        },
        responses: {
          '200': {
            description: 'Success, in the envelope: the reply of the operation the body chose',
            content: {
              'application/json': { schema: envelopeOf(replySchemaOf(ops)), examples: examplesOf(own, (e) => envelope(200, e.reply)) },
            },
          },
          ...refusalResponses(writes, writes.length < ops.length),
        },
      },
    };
  }
  const schemas: Record<string, JsonSchema> = {};
  for (const op of routed) {
    schemas[requestSchemaName(op)] = requestComponent(op);
    schemas[replySchemaName(op)] = replyComponent(op);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Back-office API',
      version,
      description: `Every call is a POST with a JSON body naming \`org_id\`; every answer is an envelope whose statusCode equals the HTTP status. CORS headers: ${Object.keys(corsHeaders).join(', ')}. Domains: ${Object.values(domainPrefix).join(', ')}. Whatever its schema, a body nests at most ${requestShapeLimits.maxDepth} levels deep and holds at most ${requestShapeLimits.maxArrayItems} items per array and ${requestShapeLimits.maxObjectKeys} members per object (beyond that: 400), within 1 MiB, or the larger size an operation carrying a file states in \`x-max-body-bytes\` (beyond that: 413). A JSON number a double cannot hold as written (\`1e-400\`, \`9007199254740993\`) is refused wherever it stands: send such a value as a string.\n\nPatterns are written for every mainstream engine (ECMA-262 with or without the \`u\` flag, Python, Rust, PCRE): characters outside ASCII stand as themselves, digits as \`[0-9]\`. What a portable schema cannot state is said beside it: \`x-text-rule\` on a text field (the server also refuses an unpaired UTF-16 surrogate), \`x-decimal-places\` on a decimal (the server also reads a JSON number with up to that many decimal places, a form validators that divide binary floats judge unevenly, so the schema offers whole numbers and decimal strings).\n\nSeveral operations may share a path, the body choosing among them (\`action\`, a flag, a field): each path lists its operations, each operation's request and reply are the schemas named after it (\`<operation>.request\`, \`<operation>.reply\`), and the path's request body is the \`oneOf\` of them. An operation accepted on every path of its domain is described at its canonical path only.`,
    },
    servers: [{ url: '/', description: 'The gateway serving this document' }],
    tags: serviceNames.map((service) => ({ name: service, description: `Operations of the ${service} service` })),
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } }, schemas },
    paths,
    'x-events': events.map((e) => ({ type: e.type, summary: e.summary, data: schemaOf(e.data, 'output') })),
    'x-operations': operations.map((op) => ({
      name: op.name,
      service: op.service,
      summary: op.summary,
      paths: op.paths,
      domainWide: !!op.domainWide,
      select: op.select,
      write: op.write,
      cost: operationCost(op),
      ...(op.paths.length ? { request: refTo(requestSchemaName(op)), reply: refTo(replySchemaName(op)) } : {}),
    })),
  };
}
