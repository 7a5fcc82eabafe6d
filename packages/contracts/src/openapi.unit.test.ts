import { execFileSync } from 'node:child_process';
import type { ValidateFunction } from 'ajv/dist/2020';
import fc from 'fast-check';
import { extensionsIn, strangersAjv } from './testing/strangers-ajv';
import { knownPaths, operations, operationsByName, resolveCandidates, resolveOperation } from './catalogue';
import { exampleStory } from './examples';
import { textPatterns } from './fields';
import { buildOpenApi, replySchemaName, requestSchemaName } from './openapi';
import { dereference } from './openapi.fixtures';
import { jsonSchemaOf as schemaOf } from './json-schema';
import type { Operation } from './operation';

type JsonSchema = Record<string, any>;

const doc = dereference(buildOpenApi()) as {
  paths: Record<string, { post: { requestBody: { content: { 'application/json': { schema: JsonSchema } } } } }>;
};
// Judged as a stranger's validator judges it (strict, untuned): what the document says must hold there.
const ajv = strangersAjv(extensionsIn(buildOpenApi()));

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

/** The pattern every text field carries (no control characters), which says nothing about what the field holds. */
const isTextPattern = (p: string) => Object.values(textPatterns).some((text) => text.source === p);

/** A small valid value for a JSON schema: required properties only, first branch, the lowest bound. */
function sample(schema: JsonSchema): unknown {
  if ('const' in schema) return schema['const'];
  // An alternative and what it leaves out: the members of the one, none of the other's.
  if (schema['allOf'] && !schema['type']) return Object.assign({}, ...(schema['allOf'] as JsonSchema[]).map(sample));
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
    case 'string': {
      const patterns = [schema['pattern'], ...((schema['allOf'] ?? []) as JsonSchema[]).map((s) => s['pattern'])] as Array<
        string | undefined
      >;
      const telling = patterns.find((p) => p?.startsWith('^') && !isTextPattern(p));
      if (telling) return fc.sample(fc.stringMatching(new RegExp(telling, 'u')), { numRuns: 1, seed: 1 })[0];
      return 'x'.repeat(Math.max(1, schema['minLength'] ?? 1));
    }
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

describe('OpenAPI responses and headers', () => {
  const full = dereference(buildOpenApi()) as {
    servers: Array<{ url: string }>;
    paths: Record<
      string,
      {
        post: {
          parameters: Array<{ name: string; schema: JsonSchema }>;
          responses: Record<string, { content: { 'application/json': { schema: JsonSchema } } }>;
        };
      }
    >;
  };

  it('names the server that serves it', () => {
    expect(full.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });

  it('declares each refusal status in the error envelope with its codes, 409 only where a path writes', () => {
    for (const path of knownPaths()) {
      const { responses } = full.paths[path]!.post;
      const writes = resolveCandidates(path).some((op) => op.write);
      const statuses = Object.keys(responses);
      expect([path, statuses]).toEqual([
        path,
        ['200', '400', '401', '403', ...(writes ? ['409'] : []), '413', ...(writes ? ['422'] : []), '429', '500', '503', '504'],
      ]);
      const codeOf = (status: string) => responses[status]!.content['application/json'].schema['properties'].body.properties.code.enum;
      expect(codeOf('400')).toEqual(expect.arrayContaining(['validation_failed', 'not_found', 'invalid_state', 'credit_exceeds_invoice']));
      // Each code under one status: the client reads the status, then the code.
      const declared = statuses.filter((s) => s !== '200').flatMap((s) => codeOf(s) as string[]);
      expect(declared.filter((c) => c !== 'outcome_unknown').length).toBe(new Set(declared.filter((c) => c !== 'outcome_unknown')).size);
      expect(codeOf('429')).toEqual(['rate_limited']);
      if (writes) expect(codeOf('422')).toEqual(['idempotency_key_reused']);
      expect(codeOf('503')).toEqual(writes ? ['service_unavailable', 'outcome_unknown'] : ['service_unavailable']);
      const envelope = ajv.compile(responses['401']!.content['application/json'].schema);
      expect(envelope({ statusCode: 401, headers: {}, body: { message: 'No key', code: 'unauthorized' } })).toBe(true);
      expect(envelope({ statusCode: 401, headers: {}, body: { message: 'No key', code: 'forbidden' } })).toBe(false);
    }
  });

  it('tells the replies of a path apart: a reply of each operation matches exactly the alternative naming it', () => {
    for (const path of knownPaths()) {
      const schema = full.paths[path]!.post.responses['200']!.content['application/json'].schema['properties'].body as JsonSchema;
      const alternatives = (schema['oneOf'] ?? [schema]) as JsonSchema[];
      const validators = alternatives.map((a) => ({ title: a['title'] as string, validate: ajv.compile(a) }));
      for (const op of resolveCandidates(path)) {
        const reply = sample(schemaOf(op.reply, 'input'));
        const matched = validators.filter((v) => v.validate(reply)).map((v) => v.title);
        const names = matched[0]?.split(' | ').map((title) => title.replace(/ reply$/, ''));
        expect([path, op.name, matched.length, names?.includes(op.name)]).toEqual([path, op.name, 1, true]);
      }
    }
  });

  it('declares Idempotency-Key as the gateway checks it', () => {
    const header = full.paths['/crm/partners']!.post.parameters.find((p) => p.name === 'Idempotency-Key')!;
    const pattern = new RegExp(header.schema['pattern'] as string, 'u');
    expect(header.schema['maxLength']).toBe(255);
    for (const key of ['a', 'k'.repeat(255), '~ !', '550e8400-e29b-41d4-a716-446655440000'])
      expect([key, pattern.test(key)]).toEqual([key, true]);
    for (const key of ['', ' ', ' a', 'a ', 'k'.repeat(256), 'caf\u00e9', 'a\tb', 'a\u007f'])
      expect([key, pattern.test(key)]).toEqual([key, false]);
  });
});

describe('each operation once, at its canonical path', () => {
  type Raw = {
    components: { schemas: Record<string, JsonSchema> };
    paths: Record<
      string,
      {
        post: {
          summary: string;
          description: string;
          requestBody: { content: { 'application/json': { schema: JsonSchema; examples: Record<string, { value: unknown }> } } };
          responses: Record<
            string,
            { content: { 'application/json': { schema: JsonSchema; examples?: Record<string, { value: unknown }> } } }
          >;
        };
      }
    >;
  };
  const raw = buildOpenApi() as unknown as Raw;
  const routed = operations.filter((op) => op.paths.length > 0);
  const canonical = (op: Operation) => op.paths[0] as string;

  it('names one request and one reply schema per operation, which every path accepting it refers to rather than copies', () => {
    expect(Object.keys(raw.components.schemas).sort()).toEqual(routed.flatMap((op) => [requestSchemaName(op), replySchemaName(op)]).sort());
    for (const path of knownPaths()) {
      const alternatives = raw.paths[path]!.post.requestBody.content['application/json'].schema['oneOf'] as JsonSchema[];
      // A reference alone, or a reference and what a neighbour's selector leaves out, under `allOf`.
      const refs = alternatives.map((a) => a['$ref'] ?? (a['allOf'] as JsonSchema[])[0]!['$ref']);
      expect([path, refs]).toEqual([
        path,
        resolveCandidates(path)
          .map((op) => `#/components/schemas/${requestSchemaName(op)}`)
          .sort((a, b) => refs.indexOf(a) - refs.indexOf(b)),
      ]);
      for (const a of alternatives) {
        const exclusion = (a['allOf'] as JsonSchema[] | undefined)?.[1];
        expect([path, Object.keys(a).sort()]).toEqual([path, exclusion ? ['allOf', 'title'] : ['$ref']]);
        if (exclusion) expect([path, Object.keys(exclusion).sort()]).toEqual([path, ['description', 'properties', 'type']]);
      }
    }
  });

  it('makes the selector of an operation chosen by an action or a flag a required const of its request schema', () => {
    const selected = routed.filter((op) => 'action' in op.select || 'flag' in op.select);
    expect(selected.length).toBeGreaterThan(routed.length / 2);
    for (const op of selected) {
      const schema = raw.components.schemas[requestSchemaName(op)] as { required?: string[]; properties?: Record<string, JsonSchema> };
      const [field, value] = 'action' in op.select ? ['action', op.select.action] : ['flag' in op.select ? op.select.flag : '', true];
      expect([op.name, schema.required?.includes(field), schema.properties?.[field]?.['const']]).toEqual([op.name, true, value]);
    }
  });

  it('puts nothing beside a `$ref`, which many tools drop (spectral did, and every `oneOf` lost its exclusions)', () => {
    const beside: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${at}/${i}`));
      if (node === null || typeof node !== 'object') return;
      if ('$ref' in node && Object.keys(node).length > 1) beside.push(`${at}: ${Object.keys(node).join(', ')}`);
      for (const [key, value] of Object.entries(node)) walk(value, `${at}/${key}`);
    };
    walk(raw, '#');
    expect(beside).toEqual([]);
  });

  it('describes an operation in its canonical path alone; a path that also accepts it names it and links there', () => {
    for (const op of routed) {
      const describing = knownPaths().filter((path) => {
        const { summary, description } = raw.paths[path]!.post;
        return summary.includes(op.summary) || description.includes(op.summary);
      });
      expect([op.name, describing]).toEqual([op.name, [canonical(op)]]);
      for (const path of knownPaths().filter((p) => p !== canonical(op))) {
        const accepted = resolveCandidates(path).includes(op);
        const { description } = raw.paths[path]!.post;
        expect([op.name, path, description.includes(`\`${op.name}\``)]).toEqual([op.name, path, accepted]);
      }
    }
    expect(raw.paths['/inventory/getproducts']!.post.description).toContain(
      '`catalog.stock.adjust` (`"action": "stock_adjustment"`): see [/inventory/ops/getdata](#/catalog/inventory_ops_getdata)',
    );
  });

  it('discriminates the paths that `action` alone routes, mapping each value to its operation’s request schema', () => {
    for (const path of knownPaths()) {
      const ops = resolveCandidates(path);
      const schema = raw.paths[path]!.post.requestBody.content['application/json'].schema;
      if (!ops.every((op) => 'action' in op.select)) {
        expect([path, schema['discriminator']]).toEqual([path, undefined]);
        continue;
      }
      const mapping = Object.fromEntries(
        ops.map((op) => [(op.select as { action: string }).action, `#/components/schemas/${requestSchemaName(op)}`]),
      );
      expect([path, schema['discriminator']]).toEqual([path, { propertyName: 'action', mapping }]);
    }
    expect(
      Object.keys(raw.paths).filter((p) => raw.paths[p]!.post.requestBody.content['application/json'].schema['discriminator']),
      // /sales/addline also takes `calculate_total: true` (sales.quotation.total, domain-wide): no discriminator there.
    ).toEqual(['/crm/editpatner', '/inventory/ops/getdata', '/integrations/webhooks']);
  });

  it('gives every operation an example, at its canonical path only, that its schema, the router and its alternative all take', () => {
    const story = exampleStory('2030-01-15');
    const components = (doc as unknown as { components: { schemas: Record<string, JsonSchema> } }).components.schemas;
    for (const op of routed) {
      const example = story.find((s) => s.operation === op.name);
      expect([op.name, example !== undefined]).toEqual([op.name, true]);
      const { request, reply } = example!;
      expect([op.name, op.request.safeParse(request).error?.issues ?? []]).toEqual([op.name, []]);
      expect([op.name, op.reply.safeParse(reply).error?.issues ?? []]).toEqual([op.name, []]);
      // And the named schemas the document shows them under, as a stranger's validator reads them.
      for (const [name, value] of [
        [requestSchemaName(op), request],
        [replySchemaName(op), reply],
      ] as const) {
        const validate = ajv.compile(components[name]!);
        expect([name, validate(value), ajv.errorsText(validate.errors)]).toEqual([name, true, 'No errors']);
      }
      for (const path of op.domainWide ? knownPaths().filter((p) => resolveCandidates(p).includes(op)) : [canonical(op)]) {
        const resolved = resolveOperation(path, request);
        expect([op.name, path, resolved.kind === 'operation' && resolved.operation.name]).toEqual([op.name, path, op.name]);
        expect([op.name, path, matching(alternativesOf(path), request)]).toEqual([op.name, path, [op.name]]);
      }
      for (const path of knownPaths()) {
        const shown = raw.paths[path]!.post.requestBody.content['application/json'].examples;
        expect([op.name, path, op.name in shown]).toEqual([op.name, path, path === canonical(op)]);
      }
    }
  });

  it('shows each example answer as the 200 envelope of its path declares it', () => {
    for (const path of knownPaths()) {
      const ok = doc.paths[path]!.post as unknown as {
        responses: Record<string, { content: { 'application/json': { schema: JsonSchema } } }>;
      };
      const validate = ajv.compile(ok.responses['200']!.content['application/json'].schema);
      const examples = raw.paths[path]!.post.responses['200']!.content['application/json'].examples ?? {};
      expect(Object.keys(examples).sort()).toEqual(
        resolveCandidates(path)
          .filter((op) => canonical(op) === path)
          .map((op) => op.name)
          .sort(),
      );
      const body = ok.responses['200']!.content['application/json'].schema['properties'].body as JsonSchema;
      const alternatives = ((body['oneOf'] ?? [body]) as JsonSchema[]).map((a) => ajv.compile(a));
      for (const [name, example] of Object.entries(examples)) {
        expect([path, name, validate(example.value), validate.errors ?? null]).toEqual([path, name, true, null]);
        const reply = (example.value as { body: unknown }).body;
        expect([path, name, alternatives.filter((a) => a(reply)).length]).toEqual([path, name, 1]);
      }
    }
  });
});
