/**
 * One jest run for the whole monorepo, in tiers chosen by file suffix (docs/running.md, Test):
 *
 * | project | files | needs |
 * |---|---|---|
 * | unit | `*.unit.test.ts`, `tests/repo/` | Node only: any connection or listening socket throws (`no-network.js`); `npm run test:fast` |
 * | int | `*.int.test.ts` | PostgreSQL and RabbitMQ, or tools such as poppler; one service, a package or a harness |
 * | e2e | `*.e2e.test.ts` | the whole system started in the test's process, through the gateway |
 * | fuzz | `*.fuzz.test.ts` | the whole system, driven from `/openapi.json` |
 * | chaos | `*.chaos.test.ts` | the fault-injection harness's own processes and servers |
 *
 * `npm test` runs every project; tests/repo/tiers.unit.test.ts holds every test file to exactly one.
 */
const workspaces = {
  kernel: 'packages/kernel',
  contracts: 'packages/contracts',
  runtime: 'packages/runtime',
  billing: 'packages/billing',
  testkit: 'packages/testkit',
  launcher: 'apps/launcher',
  client: 'packages/client',
  documents: 'packages/documents',
  gateway: 'services/gateway',
  partners: 'services/partners',
  catalog: 'services/catalog',
  sales: 'services/sales',
  invoicing: 'services/invoicing',
  webhooks: 'services/webhooks',
  bench: 'tools/bench',
  chaos: 'tools/chaos',
};

/** What every tier shares: where tests live, how TypeScript is loaded, how `@bo/*` resolves to sources. */
const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/apps', '<rootDir>/tools', '<rootDir>/tests'],
  transform: { '^.+\\.ts$': '<rootDir>/tests/support/jest/transform.js' },
  moduleNameMapper: Object.fromEntries(Object.entries(workspaces).map(([name, dir]) => [`^@bo/${name}$`, `<rootDir>/${dir}/src`])),
};

/** Compiles the official e-invoice rules before a tier that may run them starts its tests (once per clone: they are cached). */
const einvoiceRules = '<rootDir>/tests/support/jest/einvoice-rules.ts';

/** The tiers, by file suffix. */
const tiers = {
  unit: {
    testMatch: ['**/*.unit.test.ts', '<rootDir>/tests/repo/**/*.test.ts'],
    setupFilesAfterEnv: ['<rootDir>/tests/support/jest/no-network.js'],
  },
  int: { testMatch: ['**/*.int.test.ts'], globalSetup: einvoiceRules },
  e2e: { testMatch: ['**/*.e2e.test.ts'], globalSetup: einvoiceRules },
  fuzz: { testMatch: ['**/*.fuzz.test.ts'], globalSetup: einvoiceRules },
  chaos: { testMatch: ['**/*.chaos.test.ts'], globalSetup: einvoiceRules },
};

module.exports = {
  projects: Object.entries(tiers).map(([displayName, tier]) => ({ ...common, displayName, ...tier })),
  testTimeout: 30_000,
  maxWorkers: 2,
  testSequencer: '<rootDir>/tests/support/jest/sequencer.js',
  reporters: ['default', '<rootDir>/tests/support/summary-reporter.js'],
};
