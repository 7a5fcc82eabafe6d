import { z } from 'zod';
import { corsHeaders, errorBodySchema } from './envelope';
import { events, knownPaths, operations, resolveCandidates } from './catalogue';
import { describeSelector, domainPrefix } from './operation';

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

/** OpenAPI 3.1 document generated from the operation catalogue, so it cannot drift from routing. */
export function buildOpenApi(version = '0.1.0'): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const path of knownPaths()) {
    const ops = resolveCandidates(path);
    const description = ops
      .map((op) => `- \`${op.name}\` (${describeSelector(op.select)}): ${op.summary}${op.paths[0] === path ? '' : ` (canonical path ${op.paths[0]})`}`)
      .join('\n');
    paths[path] = {
      post: {
        operationId: path.replace(/\W+/g, '_').replace(/^_/, ''),
        summary: ops.map((op) => op.summary).join(' | '),
        description: `Operations on this path, chosen by \`action\`, a flag or a field:\n${description}\n\nThe trailing slash is optional.`,
        security: [{ bearerAuth: [] }],
        parameters: [
          { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } },
          { name: 'language', in: 'header', required: false, schema: { type: 'string' } },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { oneOf: ops.map((op) => ({ title: op.name, ...schemaOf(op.request, 'input') })) } } },
        },
        responses: {
          '200': {
            description: 'Success, in the envelope',
            content: { 'application/json': { schema: envelopeOf({ oneOf: ops.map((op) => ({ title: op.name, ...schemaOf(op.reply, 'input') })) }) } },
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
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
    paths,
    'x-events': events.map((e) => ({ type: e.type, summary: e.summary, data: schemaOf(e.data, 'output') })),
    'x-operations': operations.map((op) => ({ name: op.name, service: op.service, paths: op.paths, domainWide: !!op.domainWide, select: op.select, write: op.write })),
  };
}
