/**
 * No file reaches itself through its imports: a circle means two modules that cannot be read, tested
 * or moved apart, and an order of initialisation that depends on who is loaded first.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importCircles, relativeImports } from './import-graph';

const root = join(__dirname, '..', '..');
const workspaces = ['packages', 'services', 'apps', 'tools']
  .flatMap((group) => readdirSync(join(root, group)).map((name) => join(group, name, 'src')))
  .filter((dir) => existsSync(join(root, dir)));

describe('import circles', () => {
  it.each(workspaces)('%s has none', (dir) => {
    expect(importCircles(join(root, dir), root)).toEqual([]);
  });

  it('finds a circle when there is one, type-only imports included', () => {
    const dir = mkdtempSync(join(tmpdir(), 'circles-'));
    try {
      mkdirSync(join(dir, 'sub'));
      writeFileSync(join(dir, 'a.ts'), "import { b } from './sub/b';\nexport const a = b;\n");
      writeFileSync(join(dir, 'sub', 'b.ts'), "import type { C } from '../c';\nexport const b = 1 as C;\n");
      writeFileSync(join(dir, 'c.ts'), "export { a } from './a';\nexport type C = number;\n");
      writeFileSync(join(dir, 'd.ts'), "import { a } from './a';\nexport const d = a;\n");
      expect(importCircles(dir, dir)).toEqual([['a.ts', 'c.ts', 'sub/b.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads every form of relative import', () => {
    const source =
      "import x from './x';\nimport type { Y } from '../y';\nexport * from './z';\nconst w = await import('./w');\nimport { n } from 'node:fs';";
    expect(relativeImports(source)).toEqual(['./x', '../y', './z', './w']);
  });
});
