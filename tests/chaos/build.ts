import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(__dirname, '..', '..');

/** Newest modification time of the non-test sources under a folder. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Workspaces whose dist/ is missing or older than their sources. */
export function staleWorkspaces(): string[] {
  const dirs = ['packages', 'services', 'apps', 'tools'].flatMap((group) =>
    readdirSync(join(repoRoot, group)).map((name) => join(repoRoot, group, name)),
  );
  return dirs.filter((dir) => {
    if (!existsSync(join(dir, 'src'))) return false;
    const info = join(dir, 'dist', '.tsbuildinfo');
    return !existsSync(info) || statSync(info).mtimeMs < newestSource(join(dir, 'src'));
  });
}

/**
 * The chaos suite runs every service as `node dist/main.js`, so it needs a current build. `npm test`
 * builds first; a test run started some other way (`npx jest tests/chaos`) builds here when needed.
 */
export function ensureBuilt(): void {
  const stale = staleWorkspaces();
  if (stale.length === 0) return;
  const turbo = join(repoRoot, 'node_modules', '.bin', 'turbo');
  const res = spawnSync(turbo, ['run', 'build', '--output-logs=errors-only'], { cwd: repoRoot, encoding: 'utf8', timeout: 600_000 });
  if (res.status !== 0) throw new Error(`build failed (needed by the chaos suite for ${stale.join(', ')}):\n${res.stdout}\n${res.stderr}`);
}
