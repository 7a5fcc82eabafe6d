/**
 * The test pyramid (jest.config.js): every test file belongs to exactly one tier, chosen by its
 * suffix, so none is silently left out of `npm test` or run twice; and the fast tier needs nothing
 * but Node, because any connection or listening socket a unit test tries throws.
 */
import { execFileSync } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { join, matchesGlob } from 'node:path';

const root = join(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const config = require(join(root, 'jest.config.js')) as {
  projects: Array<{ displayName: string; testMatch: string[]; setupFilesAfterEnv?: string[] }>;
};

const tracked = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter((file) => file.endsWith('.test.ts'));

const tiersOf = (file: string): string[] =>
  config.projects
    .filter((p) => p.testMatch.some((glob) => matchesGlob(join(root, file), glob.replace('<rootDir>', root))))
    .map((p) => p.displayName);

describe('the test tiers', () => {
  it('are unit, int, e2e, fuzz and chaos', () => {
    expect(config.projects.map((p) => p.displayName)).toEqual(['unit', 'int', 'e2e', 'fuzz', 'chaos']);
  });

  it('hold every test file in exactly one tier', () => {
    expect(tracked.length).toBeGreaterThan(200);
    const misplaced = tracked.map((file) => ({ file, tiers: tiersOf(file) })).filter(({ tiers }) => tiers.length !== 1);
    expect(misplaced).toEqual([]);
  });

  it('keep the repository checks in the fast tier', () => {
    const repoChecks = tracked.filter((file) => file.startsWith('tests/repo/'));
    expect(repoChecks.map(tiersOf)).toEqual(repoChecks.map(() => ['unit']));
  });

  it('install the network guard in the fast tier only', () => {
    const guarded = config.projects.filter((p) => p.setupFilesAfterEnv?.some((f) => f.endsWith('/no-network.js')));
    expect(guarded.map((p) => p.displayName)).toEqual(['unit']);
  });
});

describe('a unit test reaching for the network', () => {
  it('cannot connect to a port', () => {
    expect(() => connect({ host: '127.0.0.1', port: 5432 })).toThrow(
      /may not use the network \(net\.Socket\.connect\): move the test to a \*\.int\.test\.ts file/,
    );
  });

  it('cannot listen on a port', () => {
    const server = createServer();
    expect(() => server.listen(0)).toThrow(/may not use the network \(net\.Server\.listen\)/);
  });

  it('cannot fetch', () => {
    expect(() => fetch('http://127.0.0.1:3000/health')).toThrow(/may not use the network \(fetch\)/);
  });
});
