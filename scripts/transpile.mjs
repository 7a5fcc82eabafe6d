// `npm start`'s build: every product workspace's TypeScript to JavaScript in its dist/, without
// type-checking (esbuild, file by file, about a second), so a first start does not wait minutes
// for `tsc -b`. Types are checked by `npm test` (`tsc`), which also builds dist/ the usual way.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const groups = ['packages', 'services', 'apps'];
// Not the product: the test kit is for tests and the lab, which run from sources or `tsc -b`.
const notProduct = new Set([join('packages', 'testkit')]);

function sources(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const workspaces = groups.flatMap((group) =>
  readdirSync(join(root, group))
    .filter((name) => !notProduct.has(join(group, name)))
    .map((name) => join(root, group, name))
    .filter((dir) => {
      try {
        return statSync(join(dir, 'src')).isDirectory();
      } catch {
        return false;
      }
    }),
);

const started = Date.now();
let files = 0;
for (const dir of workspaces) {
  const entryPoints = sources(join(dir, 'src'));
  files += entryPoints.length;
  await build({
    entryPoints,
    outbase: join(dir, 'src'),
    outdir: join(dir, 'dist'),
    bundle: false,
    format: 'cjs',
    platform: 'node',
    target: 'node24',
    sourcemap: true,
    logLevel: 'warning',
  });
}
console.log(
  `transpiled ${files} files of ${workspaces.length} workspaces in ${Date.now() - started} ms (${workspaces.map((d) => relative(root, d)).join(', ')})`,
);
