/**
 * The monorepo's layers, read from each workspace's package.json (dependencies.test.ts checks that
 * every import is declared there): libraries in packages/ depend on libraries only; a service in
 * services/ depends on libraries, never on another service (they talk over the bus); only an app in
 * apps/ (the launcher, which starts every service) may depend on services; the lab in tools/ (the
 * benchmark and chaos harnesses) may use all of these, and nothing of the product depends on it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const groups = ['packages', 'services', 'apps', 'tools'] as const;
type Group = (typeof groups)[number];

interface Workspace {
  name: string;
  group: Group;
  dependsOn: string[];
}

const workspaces: Workspace[] = groups.flatMap((group) =>
  readdirSync(join(root, group))
    .map((dir) => join(root, group, dir, 'package.json'))
    .filter((file) => {
      try {
        return statSync(file).isFile();
      } catch {
        return false;
      }
    })
    .map((file) => {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as {
        name: string;
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
      };
      return { name: manifest.name, group, dependsOn: Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }) };
    }),
);
const groupOf = new Map(workspaces.map((w) => [w.name, w.group]));

/** Which groups a workspace of each group may depend on. */
const allowed: Record<Group, Group[]> = {
  packages: ['packages'],
  services: ['packages'],
  apps: ['packages', 'services'],
  tools: ['packages', 'services', 'apps'],
};

describe('workspace layers', () => {
  it('finds the libraries, the services and the launcher app', () => {
    expect(workspaces.filter((w) => w.group === 'packages').length).toBeGreaterThan(0);
    expect(workspaces.filter((w) => w.group === 'services').length).toBeGreaterThan(1);
    expect(groupOf.get('@bo/launcher')).toBe('apps');
    expect(groupOf.get('@bo/bench')).toBe('tools');
    expect(groupOf.get('@bo/chaos')).toBe('tools');
  });

  it.each(workspaces.map((w) => [w.name, w]))('%s depends only on the layers below it', (_name, w) => {
    const crossing = w.dependsOn.filter((dep) => {
      const group = groupOf.get(dep);
      return group !== undefined && !allowed[w.group].includes(group);
    });
    expect(crossing).toEqual([]);
  });
});
