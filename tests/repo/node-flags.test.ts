/**
 * Every serving process starts with the same V8 flags (apps/launcher/src/node-flags.ts explains
 * each). The launcher and the bench take them from that list; the places that cannot import it (the
 * npm start script, the image's entry point, compose's commands) are checked here against it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVING_NODE_FLAGS } from '../../apps/launcher/src/node-flags';

const root = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

describe('serving V8 flags', () => {
  it('npm start runs the launcher (the in-process mode) with them', () => {
    const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts['start'];
    expect(start).toBe(`node ${SERVING_NODE_FLAGS.join(' ')} apps/launcher/dist/start.js`);
  });

  it("the image's entry point carries them, and compose names only the file to run", () => {
    expect(read('Dockerfile')).toContain(`ENTRYPOINT ${JSON.stringify(['node', ...SERVING_NODE_FLAGS])}`.replace(/","/g, '", "'));
    const commands = [...read('docker-compose.yml').matchAll(/^\s+command: (\[.*\])$/gm)].map(
      (m) => JSON.parse(m[1] as string) as string[],
    );
    const services = commands.filter((c) => c[0]?.startsWith('services/'));
    expect(services.map((c) => c[0])).toEqual([
      'services/partners/dist/main.js',
      'services/catalog/dist/main.js',
      'services/sales/dist/main.js',
      'services/invoicing/dist/main.js',
      'services/webhooks/dist/main.js',
      'services/gateway/dist/main.js',
    ]);
    // A command starting with node would run node with the file "node" behind the entry point.
    expect(commands.some((c) => c[0] === 'node')).toBe(false);
  });
});
