import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildOpenApi, exampleStory, operations, replySchemaName, requestSchemaName, type Operation } from '@bo/contracts';

/**
 * What a client generated from /openapi.json gets, with a common generator (openapi-typescript):
 * one named type per operation for its request and for its reply, and each path's body as the union
 * of them, told apart by `action` where the path routes by it. Checked by the TypeScript compiler on
 * the generated types: every operation's example fits its own types and its path's, and a body that
 * names an action without that operation's required fields is refused.
 */

const root = join(__dirname, '..', '..');
const routed = operations.filter((op) => op.paths.length > 0);
const canonical = (op: Operation) => op.paths[0] as string;

describe('a TypeScript client generated from the OpenAPI document', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'bo-openapi-types-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('types each operation by name, and each path as the union of its operations', () => {
    // Its command line in a child node: the package's dependencies are ES modules, which jest's CommonJS runtime cannot load.
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(buildOpenApi()));
    // Its `exports` map `*.js` to `*.mjs`: the command is found beside the manifest.
    const cli = join(dirname(require.resolve('openapi-typescript/package.json')), 'bin', 'cli.js');
    execFileSync(process.execPath, [cli, join(dir, 'openapi.json'), '--output', join(dir, 'api.d.ts')], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
    const story = exampleStory('2030-01-15');
    const checks = routed.map((op, i) => {
      const { request, reply } = story.find((s) => s.operation === op.name)!;
      const path = JSON.stringify(canonical(op));
      return [
        `const request${i}: Schemas[${JSON.stringify(requestSchemaName(op))}] = ${JSON.stringify(request)};`,
        `const body${i}: Body<${path}> = request${i};`,
        `const reply${i}: Schemas[${JSON.stringify(replySchemaName(op))}] = ${JSON.stringify(reply)};`,
        `const answer${i}: Reply<${path}> = reply${i};`,
        `void body${i}, answer${i};`,
      ].join('\n');
    });
    const source = [
      "import type { components, paths } from './api';",
      "type Schemas = components['schemas'];",
      "type Body<P extends keyof paths> = paths[P]['post']['requestBody']['content']['application/json'];",
      "type Reply<P extends keyof paths> = paths[P]['post']['responses'][200]['content']['application/json']['body'];",
      ...checks,
      // `action` picks the alternative: stock_adjustment without qty_locations fits none.
      '// @ts-expect-error a stock adjustment names its quantities',
      "const refused: Body<'/inventory/ops/getdata'> = { org_id: '1', action: 'stock_adjustment', product_id: 1 };",
      'void refused;',
      '',
    ].join('\n');
    writeFileSync(join(dir, 'check.ts'), source);
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const args = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'commonjs', join(dir, 'check.ts')];
    let out = '';
    try {
      execFileSync(process.execPath, [tsc, ...args], { encoding: 'utf8' });
    } catch (err) {
      out = String((err as { stdout?: string }).stdout ?? err);
    }
    expect(out).toBe('');
  }, 120_000);
});
