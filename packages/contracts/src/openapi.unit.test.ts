import { execFileSync } from 'node:child_process';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import fc from 'fast-check';
import { knownPaths, operationsByName, resolveCandidates, resolveOperation } from './catalogue';
import { buildOpenApi } from './openapi';
import type { Operation } from './operation';

type JsonSchema = Record<string, any>;

const doc = buildOpenApi() as {
  paths: Record<string, { post: { requestBody: { content: { 'application/json': { schema: JsonSchema } } } } }>;
};
const ajv = new Ajv2020({ strict: false, allErrors: false });

interface Alternative {
  name: string;
  schema: JsonSchema;
  validate: ValidateFunction;
}

function alternativesOf(path: string): Alternative[] {
  const schema = doc.paths[path]!.post.requestBody.content['application/json'].schema;
  return (schema['oneOf'] as JsonSchema[]).map((alt) => ({ name: alt['title'] as string, schema: alt, validate: ajv.compile(alt) }));
}

/** Runs @seriousme/openapi-schema-validator in a child node: it is an ES module, which jest's CommonJS runtime cannot load. */
function validateOpenApi(document: unknown): { valid: boolean; errors?: unknown } {
  const script = `import { Validator } from '@seriousme/openapi-schema-validator';
    let text = ''; for await (const chunk of process.stdin) text += chunk;
    process.stdout.write(JSON.stringify(await new Validator().validate(JSON.parse(text))));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: __dirname,
    input: JSON.stringify(document),
    encoding: 'utf8',
  });
  return JSON.parse(out) as { valid: boolean; errors?: unknown };
}

const samples: Record<string, string> = {
  '^-?\\d+$': '1',
  '^\\d{4}-\\d{2}-\\d{2}$': '2026-01-15',
  '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$': '2026-01-15T10:00:00',
};

/** A small valid value for a JSON schema: required properties only, first branch, the lowest bound. */
function sample(schema: JsonSchema): unknown {
  if ('const' in schema) return schema['const'];
  if (schema['enum']) return schema['enum'][0];
  const branches = (schema['anyOf'] ?? schema['oneOf']) as JsonSchema[] | undefined;
  if (branches) return sample(branches.find((b) => b['type'] !== 'null') ?? branches[0]!);
  const type = Array.isArray(schema['type']) ? schema['type'].find((t: string) => t !== 'null') : schema['type'];
  switch (type) {
    case 'object': {
      const props = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
      const out: Record<string, unknown> = Object.fromEntries(
        ((schema['required'] ?? []) as string[]).map((k) => [k, sample(props[k] ?? {})]),
      );
      if (!schema['properties'] && typeof schema['additionalProperties'] === 'object') out['1'] = sample(schema['additionalProperties']);
      return out;
    }
    case 'array':
      return new Array(Math.max(1, schema['minItems'] ?? 1)).fill(undefined).map(() => sample(schema['items'] ?? {}));
    case 'string':
      if (schema['pattern'])
        return samples[schema['pattern']] ?? fc.sample(fc.stringMatching(new RegExp(schema['pattern'])), { numRuns: 1, seed: 1 })[0];
      return 'x'.repeat(Math.max(1, schema['minLength'] ?? 1));
    case 'integer':
    case 'number':
      return Math.max(1, schema['minimum'] ?? 1);
    case 'boolean':
      return true;
    default:
      return 1;
  }
}

/** Every (path, operation) the document serves, with a body the operation's zod schema accepts. */
const cases = knownPaths().flatMap((path) =>
  resolveCandidates(path).map((op) => ({
    path,
    op,
    body: { ...(sample(alternativesOf(path).find((a) => a.name === op.name)!.schema) as object), org_id: 1 },
  })),
);

const matching = (alternatives: Alternative[], body: unknown) => alternatives.filter((a) => a.validate(body)).map((a) => a.name);

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', () => {
    const result = validateOpenApi(buildOpenApi());
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has a sample body for every operation of every path that the operation itself accepts', () => {
    const refused = cases
      .filter((c) => !c.op.request.safeParse(c.body).success)
      .map((c) => `${c.path} ${c.op.name} ${JSON.stringify(c.body)}`);
    expect(refused).toEqual([]);
    expect(cases.length).toBeGreaterThan(knownPaths().length);
  });

  it('matches a valid body of each operation to exactly its own alternative, the one the router picks', () => {
    for (const { path, op, body } of cases) {
      const resolved = resolveOperation(path, body);
      expect([path, resolved.kind === 'operation' ? resolved.operation.name : resolved.kind]).toEqual([path, op.name]);
      expect([path, op.name, matching(alternativesOf(path), body)]).toEqual([path, op.name, [op.name]]);
    }
  });

  it('tells a product edit from a create: {org_id, product_id, name} is an edit only', () => {
    const alternatives = alternativesOf('/inventory/editproduct');
    expect(matching(alternatives, { org_id: 1, product_id: 5, name: 'Desk' })).toEqual(['catalog.product.edit']);
    expect(matching(alternatives, { org_id: 1, name: 'Desk' })).toEqual(['catalog.product.create']);
    expect(matching(alternatives, { org_id: 1, product_id: 5, delete: true })).toEqual(['catalog.product.delete']);
    expect(matching(alternatives, { org_id: 1, product_id: 5, name: 'Desk', action: 'nope' })).toEqual([]);
  });

  it('agrees with the router and the request schemas whatever the selecting fields hold', () => {
    for (const path of knownPaths()) {
      const alternatives = alternativesOf(path);
      const ops = resolveCandidates(path);
      const actions = ops.flatMap((op) => ('action' in op.select ? [op.select.action] : []));
      const selectors = [
        ...new Set(
          ops.flatMap((op) =>
            'action' in op.select ? ['action'] : 'flag' in op.select ? [op.select.flag] : 'present' in op.select ? [op.select.present] : [],
          ),
        ),
      ];
      const value = fc.constantFrom<unknown>(undefined, null, true, false, 0, 7, '7', 'nope', ...actions);
      const bases = cases.filter((c) => c.path === path).map((c) => c.body);
      fc.assert(
        fc.property(fc.constantFrom(...bases), fc.tuple(...selectors.map(() => value)), (base, values) => {
          const body: Record<string, unknown> = { ...base };
          selectors.forEach((field, i) => (values[i] === undefined ? delete body[field] : (body[field] = values[i])));
          const matched = matching(alternatives, body);
          const resolved = resolveOperation(path, body);
          const routed: Operation | undefined = resolved.kind === 'operation' ? resolved.operation : undefined;
          // The document never offers a body to two operations, nor to one the router would not run.
          expect(matched.length).toBeLessThanOrEqual(1);
          if (matched[0]) expect(routed?.name).toBe(matched[0]);
          // And whatever the router runs and its schema accepts, the document accepts too.
          if (routed && operationsByName.get(routed.name)!.request.safeParse(body).success) expect(matched).toEqual([routed.name]);
        }),
        { numRuns: 300, seed: 42 },
      );
    }
  });
});
