import { corsHeaders, errorBodySchema, errorCodes } from './envelope';
import { events, knownPaths, operations, resolveCandidates } from './catalogue';
import { jsonSchemaOf as schemaOf } from './json-schema';
import { requestShapeLimits } from './shape';
import { describeSelector, domainPrefix, serviceNames, type Operation } from './operation';

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

// Titled, so a renderer can say what each excluded case is (Swagger UI shows `required` inside `not` as "any").
const hasAction: JsonSchema = { title: 'with action', required: ['action'] };
const isTrue = (field: string): JsonSchema => ({ title: `${field}: true`, required: [field], properties: { [field]: { const: true } } });
const isSet = (field: string): JsonSchema => ({
  title: `with ${field}`,
  required: [field],
  properties: { [field]: { not: { type: 'null' } } },
});

/**
 * The bodies for which the router (`resolveOperation`) picks another operation of the path before
 * `op`, as JSON Schema: an `action` sent on a path that has actions, a flag set to true, a field
 * present (not null) that an earlier candidate is selected by, an earlier default. An alternative
 * excludes them with `not`, so a body matches exactly the alternative the gateway would run, not
 * also its neighbours (a `{org_id, product_id, name}` body is an edit, never a create too).
 */
function shadowsOf(op: Operation, candidates: readonly Operation[]): JsonSchema[] {
  if ('action' in op.select) return [];
  const shadows: JsonSchema[] = candidates.some((c) => 'action' in c.select) ? [hasAction] : [];
  const before = candidates.slice(0, candidates.indexOf(op));
  for (const other of candidates) {
    if (other === op) continue;
    if ('flag' in other.select) shadows.push(isTrue(other.select.flag));
    else if ('present' in other.select && before.includes(other)) shadows.push(isSet(other.select.present));
    else if ('default' in other.select && before.includes(other)) shadows.push({ title: `${other.name} is the default` });
  }
  return shadows;
}

/** One operation of a path as a `oneOf` alternative: its request schema, titled with its name, minus what selects a neighbour. */
function alternativeOf(op: Operation, candidates: readonly Operation[]): JsonSchema {
  const shadows = shadowsOf(op, candidates);
  // The shape limits apply before any schema (shape.ts); the body's own key count is the one a schema can state.
  const alternative: JsonSchema = { title: op.name, ...schemaOf(op.request, 'input'), maxProperties: requestShapeLimits.maxObjectKeys };
  if (op.rules?.length) {
    const rules = op.rules.map((r) => `- \`${r.field}\`: ${r.rule}`).join('\n');
    alternative['description'] = `Beyond this schema, refused with 400 \`validation_failed\` naming the field:\n${rules}`;
    alternative['x-rules'] = op.rules;
  }
  // Always an anyOf, even of one: Swagger UI shows a lone `not: {required}` as the type `never`.
  if (shadows.length > 0) alternative['not'] = { description: 'Bodies that select another operation of this path', anyOf: shadows };
  return alternative;
}

/**
 * Where every operation of a path is chosen by its `action` constant, the `action` value names the
 * alternative: a discriminator mapping each value to its alternative (by JSON pointer, since the
 * alternatives are inline), for generators and renderers that use one.
 */
function discriminatorOf(path: string, candidates: readonly Operation[]): JsonSchema | undefined {
  if (!candidates.every((op) => 'action' in op.select)) return undefined;
  const pointer = `#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/post/requestBody/content/application~1json/schema/oneOf`;
  const mapping = Object.fromEntries(candidates.map((op, i) => [(op.select as { action: string }).action, `${pointer}/${i}`]));
  return { propertyName: 'action', mapping };
}

function requestSchemaOf(path: string, ops: readonly Operation[]): JsonSchema {
  const discriminator = discriminatorOf(path, ops);
  return { oneOf: ops.map((op) => alternativeOf(op, ops)), ...(discriminator ? { discriminator } : {}) };
}

/**
 * The success reply of a path, told apart by its members: operations whose replies require the same
 * members share an alternative (create and edit both answer `{ message, partner }`; where their
 * records differ, it is the `anyOf` of the two), titled with their names. Several alternatives are
 * `oneOf`, each excluding the members that identify the others (`not` a member another requires and
 * it has none of), so a reply matches exactly one.
 */
export function replySchemaOf(ops: readonly Operation[]): JsonSchema {
  const shapes: Array<{ names: string[]; schemas: JsonSchema[] }> = [];
  const membersOf = (schema: JsonSchema) => JSON.stringify([...((schema['required'] ?? []) as string[])].sort());
  for (const op of ops) {
    const schema = schemaOf(op.reply, 'input');
    const shape = shapes.find((s) => membersOf(s.schemas[0] as JsonSchema) === membersOf(schema));
    if (!shape) shapes.push({ names: [op.name], schemas: [schema] });
    else {
      shape.names.push(op.name);
      if (!shape.schemas.some((s) => JSON.stringify(s) === JSON.stringify(schema))) shape.schemas.push(schema);
    }
  }
  const titled = (shape: (typeof shapes)[number]): JsonSchema => ({
    title: shape.names.join(' | '),
    ...(shape.schemas.length === 1 ? shape.schemas[0] : { anyOf: shape.schemas }),
  });
  if (shapes.length === 1) return titled(shapes[0] as (typeof shapes)[number]);
  const propertiesOf = (shape: (typeof shapes)[number]) => shape.schemas.flatMap((s) => Object.keys(s['properties'] ?? {}));
  return {
    oneOf: shapes.map((shape) => {
      const own = propertiesOf(shape);
      const others = shapes
        .filter((o) => o !== shape)
        .flatMap((o) => ((o.schemas[0] as JsonSchema)['required'] ?? []) as string[])
        .filter((k) => !own.includes(k));
      const alternative = titled(shape);
      if (others.length) alternative['not'] = { anyOf: [...new Set(others)].map((k) => ({ required: [k] })) };
      return alternative;
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
  { status: 413, codes: ['payload_too_large'], description: 'The body is over the size limit (1 MiB)' },
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
      'Retry-After': { description: 'Seconds to wait, at least 1', schema: { type: 'string', pattern: '^[1-9]\\d*$' } },
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

function refusalResponses(write: boolean): Record<string, unknown> {
  const errorBody = schemaOf(errorBodySchema, 'output');
  const responses: Record<string, unknown> = {};
  for (const r of refusals) {
    if (r.writesOnly && !write) continue;
    // Only a write's outcome can be unknown.
    const codes = r.codes.filter((c) => write || c !== 'outcome_unknown');
    const properties = { ...(errorBody['properties'] as Record<string, unknown>), code: { type: 'string', enum: codes } };
    responses[String(r.status)] = {
      description: r.description,
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

/** OpenAPI 3.1 document generated from the operation catalogue, so it cannot drift from routing. */
export function buildOpenApi(version = '0.1.0'): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const path of knownPaths()) {
    const ops = resolveCandidates(path);
    const description = ops
      .map(
        (op) =>
          `- \`${op.name}\` (${describeSelector(op.select)}): ${op.summary}${op.paths[0] === path ? '' : ` (canonical path ${op.paths[0]})`}`,
      )
      .join('\n');
    paths[path] = {
      post: {
        operationId: path.replace(/\W+/g, '_').replace(/^_/, ''),
        // One tag per domain, so a reader (and the /docs page) finds each domain's operations together.
        tags: [...new Set(ops.map((op) => op.service))],
        summary: ops.map((op) => op.summary).join(' | '),
        description: `Operations on this path, chosen by \`action\`, a flag or a field:\n${description}\n\nThe trailing slash is optional.`,
        security: [{ bearerAuth: [] }],
        parameters: [idempotencyKeyHeader, { name: 'language', in: 'header', required: false, schema: { type: 'string' } }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: requestSchemaOf(path, ops) } },
        },
        responses: {
          '200': {
            description: 'Success, in the envelope',
            content: { 'application/json': { schema: envelopeOf(replySchemaOf(ops)) } },
          },
          ...refusalResponses(ops.some((op) => op.write)),
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Back-office API',
      version,
      description: `Every call is a POST with a JSON body naming \`org_id\`; every answer is an envelope whose statusCode equals the HTTP status. CORS headers: ${Object.keys(corsHeaders).join(', ')}. Domains: ${Object.values(domainPrefix).join(', ')}. Whatever its schema, a body nests at most ${requestShapeLimits.maxDepth} levels deep and holds at most ${requestShapeLimits.maxArrayItems} items per array and ${requestShapeLimits.maxObjectKeys} members per object (beyond that: 400), within 1 MiB (beyond that: 413). A JSON number a double cannot hold as written (\`1e-400\`, \`9007199254740993\`) is refused wherever it stands: send such a value as a string.`,
    },
    servers: [{ url: '/', description: 'The gateway serving this document' }],
    tags: serviceNames.map((service) => ({ name: service, description: `Operations of the ${service} service` })),
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
    paths,
    'x-events': events.map((e) => ({ type: e.type, summary: e.summary, data: schemaOf(e.data, 'output') })),
    'x-operations': operations.map((op) => ({
      name: op.name,
      service: op.service,
      paths: op.paths,
      domainWide: !!op.domainWide,
      select: op.select,
      write: op.write,
    })),
  };
}
