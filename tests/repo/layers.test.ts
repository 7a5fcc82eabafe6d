/**
 * Arrows between workspaces point one way, read from what each workspace's shipped sources import:
 *
 *   kernel <- contracts <- runtime, documents, client <- billing <- services <- apps <- tools
 *                         runtime <- test kit <- tests and tools only
 *
 * A source imports only workspaces of a layer below its own: the kernel imports none, a library never
 * a service, a service never another service (they talk over the bus) nor the launcher. The test kit
 * (packages/testkit) stands on the runtime, a layer of its own, and is for tests and the lab: no
 * source of the product imports it. Test files (`*.test.ts`, `test/` folders, tests/) may import any
 * workspace.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { importedPackages, sourceFilesOf } from './import-graph';

const root = join(__dirname, '..', '..');
const TESTKIT = '@bo/testkit';

/** The libraries in packages/, lowest first; a new one must be placed here. */
const libraryLayers: string[][] = [
  ['@bo/kernel'],
  ['@bo/contracts'],
  ['@bo/runtime', '@bo/documents', '@bo/client'],
  ['@bo/billing'],
  [TESTKIT],
];
const groupLayer = { services: libraryLayers.length, apps: libraryLayers.length + 1, tools: libraryLayers.length + 2 } as const;

interface Workspace {
  name: string;
  dir: string;
  layer: number | undefined;
  group: 'packages' | keyof typeof groupLayer;
}

const workspaces: Workspace[] = (['packages', 'services', 'apps', 'tools'] as const).flatMap((group) =>
  readdirSync(join(root, group))
    .map((name) => join(group, name))
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .map((dir) => {
      const name = (JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { name: string }).name;
      const layer = group === 'packages' ? libraryLayers.findIndex((l) => l.includes(name)) : groupLayer[group];
      return { name, dir, group, layer: layer < 0 ? undefined : layer };
    }),
);
const byName = new Map(workspaces.map((w) => [w.name, w]));

/** Why `from` may not import `to`, or undefined when it may. */
function forbidden(from: Workspace, to: Workspace): string | undefined {
  if (from.name === to.name) return undefined;
  if (to.name === TESTKIT && from.group !== 'tools') return 'the test kit is for tests and the lab only';
  if (to.layer === undefined || from.layer === undefined) return 'a workspace without a layer';
  if (to.layer >= from.layer) return to.layer === from.layer ? 'a workspace of its own layer' : 'a workspace of a higher layer';
  return undefined;
}

describe('layers', () => {
  it('places every library', () => {
    expect(workspaces.filter((w) => w.layer === undefined).map((w) => w.name)).toEqual([]);
    expect(byName.get('@bo/kernel')?.layer).toBe(0);
  });

  it.each(workspaces.map((w) => [w.dir, w]))('%s imports only workspaces below it', (_dir, w) => {
    const src = join(root, w.dir, 'src');
    const upward = sourceFilesOf(src).flatMap((file) =>
      importedPackages(readFileSync(file, 'utf8')).flatMap((pkg) => {
        const to = byName.get(pkg);
        const why = to && forbidden(w, to);
        return why ? [`${relative(root, file)} imports ${pkg}: ${why}`] : [];
      }),
    );
    expect(upward).toEqual([]);
  });

  it('refuses the arrows that point the wrong way', () => {
    const at = (name: string) => byName.get(name)!;
    expect(forbidden(at('@bo/kernel'), at('@bo/contracts'))).toBeDefined();
    expect(forbidden(at('@bo/kernel'), at('@bo/runtime'))).toBeDefined();
    expect(forbidden(at('@bo/contracts'), at('@bo/runtime'))).toBeDefined();
    expect(forbidden(at('@bo/runtime'), at('@bo/documents'))).toBeDefined();
    expect(forbidden(at('@bo/runtime'), at('@bo/sales'))).toBeDefined();
    expect(forbidden(at('@bo/sales'), at('@bo/invoicing'))).toBeDefined();
    expect(forbidden(at('@bo/sales'), at('@bo/launcher'))).toBeDefined();
    expect(forbidden(at('@bo/launcher'), at('@bo/chaos'))).toBeDefined();
    for (const product of ['@bo/runtime', '@bo/sales', '@bo/gateway', '@bo/launcher'])
      expect(forbidden(at(product), at(TESTKIT))).toBeDefined();
    expect(forbidden(at(TESTKIT), at('@bo/runtime'))).toBeUndefined();
    expect(forbidden(at('@bo/chaos'), at(TESTKIT))).toBeUndefined();
    expect(forbidden(at('@bo/sales'), at('@bo/kernel'))).toBeUndefined();
  });
});
