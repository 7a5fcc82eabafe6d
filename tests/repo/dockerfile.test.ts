/**
 * The image installs from every workspace's manifest before it copies the sources (so the install
 * layer is cached, and matches the lockfile): a workspace missing there installs nothing of its own
 * and the image's build fails far from the cause. Docker is not available here, so this is the check.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');

const workspaces = ['packages', 'services', 'apps', 'tools'].flatMap((group) =>
  readdirSync(join(root, group))
    .map((name) => `${group}/${name}`)
    .filter((dir) => {
      try {
        return statSync(join(root, dir, 'package.json')).isFile();
      } catch {
        return false;
      }
    }),
);

describe('Dockerfile', () => {
  it.each(workspaces)('copies the manifest of %s before the install', (dir) => {
    const copy = dockerfile.indexOf(`COPY ${dir}/package.json ${dir}/`);
    expect(copy).toBeGreaterThan(-1);
    expect(copy).toBeLessThan(dockerfile.indexOf('RUN npm ci --no-audit'));
  });

  it('builds on a pinned release of the current Node LTS line and a pinned npm', () => {
    const packageManager = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager as string;
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24\.\d+\.\d+-[a-z]+-slim$/m);
    expect(dockerfile).toContain(`npm install -g ${packageManager}`);
  });
});
