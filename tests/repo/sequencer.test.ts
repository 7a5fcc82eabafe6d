/**
 * The run's test order (tests/support/jest/sequencer.js): the chaos runs start first, whatever jest's
 * own order (failed, then longest, else largest) would have put them; every other file keeps that order.
 */
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS file jest loads as it is
const RunSequencer = require('../support/jest/sequencer.js') as new (options: unknown) => {
  sort(tests: unknown[]): Promise<Array<{ path: string }>>;
};

const root = join(__dirname, '..', '..');
const sizes: Record<string, number> = {
  'tests/e2e/one-ledger-property.e2e.test.ts': 30_000,
  'services/invoicing/test/payments.int.test.ts': 20_000,
  'tests/chaos/faults.chaos.test.ts': 2_000,
  'packages/kernel/src/money.unit.test.ts': 1_000,
};
const context = { config: { cache: false, rootDir: root }, hasteFS: { getSize: (path: string) => sizes[path.slice(root.length + 1)] } };
const test = (relative: string) => ({ path: join(root, relative), context });

describe('the run sequencer', () => {
  it('starts the chaos runs first and keeps jest’s order (largest first, on a cold cache) for the rest', async () => {
    const sorted = await new RunSequencer({}).sort(Object.keys(sizes).reverse().map(test));
    expect(sorted.map((t) => t.path.slice(root.length + 1))).toEqual([
      'tests/chaos/faults.chaos.test.ts',
      'tests/e2e/one-ledger-property.e2e.test.ts',
      'services/invoicing/test/payments.int.test.ts',
      'packages/kernel/src/money.unit.test.ts',
    ]);
  });
});
