import { z } from 'zod';
import { corsHeaders, errorBodySchema } from './envelope';
import { events, knownPaths, operations, resolveCandidates } from './catalogue';
import { describeSelector, domainPrefix, serviceNames, type Operation } from './operation';

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete json['$schema'];
  return json;
}

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
  const alternative: JsonSchema = { title: op.name, ...schemaOf(op.request, 'input') };
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
        parameters: [
          { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } },
          { name: 'language', in: 'header', required: false, schema: { type: 'string' } },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: requestSchemaOf(path, ops) } },
        },
        responses: {
          '200': {
            description: 'Success, in the envelope',
            // anyOf: operations of one path may answer the same shape (create and edit both answer the record).
            content: {
              'application/json': { schema: envelopeOf({ anyOf: ops.map((op) => ({ title: op.name, ...schemaOf(op.reply, 'input') })) }) },
            },
          },
          default: {
            description: 'Error, in the envelope (400, 401, 403, 404, 405, 413, 500, 503, 504)',
            content: { 'application/json': { schema: envelopeOf(schemaOf(errorBodySchema, 'output')) } },
          },
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Back-office API',
      version,
      description: `Every call is a POST with a JSON body naming \`org_id\`; every answer is an envelope whose statusCode equals the HTTP status. CORS headers: ${Object.keys(corsHeaders).join(', ')}. Domains: ${Object.values(domainPrefix).join(', ')}.`,
    },
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
