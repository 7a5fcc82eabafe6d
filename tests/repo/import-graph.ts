/**
 * What source files import: the packages they name, and the graph of relative imports between a
 * workspace's files with its circles (sets of files that reach each other through their imports,
 * Tarjan's strongly connected components).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';

const builtins = new Set(builtinModules);

// A bare specifier: npm's name rules, optionally scoped, optionally with a subpath; not `./x`, `node:x` or SQL text.
const packageSpecifier = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*(\/[^\s]*)?$/;

/**
 * Package names a file imports: import and export statements with a from clause (a statement: at the
 * start of a line, after a `;` or opening a template a child process runs; so SQL like `from "items"`
 * in a string is not one), bare imports, dynamic import(), require() and require.resolve().
 */
export function importedPackages(source: string): string[] {
  const statements = source.matchAll(/(?:^|[;`])\s*(?:import|export)\b[^;'"]*?\bfrom\s+['"]([^'"]+)['"]/gm);
  const calls = source.matchAll(/(?:\bimport\s*\(?\s*|\brequire(?:\.resolve)?\s*\(\s*)['"]([^'"]+)['"]/g);
  const specifiers = [...statements, ...calls].map((m) => m[1]!);
  return specifiers
    .filter((s) => packageSpecifier.test(s))
    .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]!))
    .filter((name) => !builtins.has(name));
}

export function sourceFilesOf(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...sourceFilesOf(path));
    else if (entry.endsWith('.ts') && !entry.endsWith('.d.ts') && !entry.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/** Relative specifiers a file imports or re-exports, type-only ones included. */
export function relativeImports(source: string): string[] {
  const found = source.matchAll(/(?:^|[;\n])\s*(?:import|export)\b[^;'"]*?\bfrom\s+['"](\.[^'"]*)['"]|\bimport\s*\(\s*['"](\.[^'"]*)['"]/g);
  return [...found].map((m) => (m[1] ?? m[2])!);
}

function resolveImport(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate)) return candidate;
  return undefined;
}

/** Every circle among the files under `dir`, each as paths relative to `root`, sorted. */
export function importCircles(dir: string, root: string): string[][] {
  const files = sourceFilesOf(dir);
  const edges = new Map(
    files.map((file) => [
      file,
      relativeImports(readFileSync(file, 'utf8'))
        .map((s) => resolveImport(file, s))
        .filter((f): f is string => f !== undefined),
    ]),
  );
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      const selfLoop = (edges.get(v) ?? []).includes(v);
      if (component.length > 1 || selfLoop) circles.push(component.map((f) => relative(root, f)).sort());
    }
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return circles;
}
