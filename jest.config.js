/** One jest run for the whole monorepo: unit, integration (*.int) and end-to-end (*.e2e) tests. */
const workspaces = {
  kernel: 'packages/kernel',
  contracts: 'packages/contracts',
  runtime: 'packages/runtime',
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

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/apps', '<rootDir>/tools', '<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
  moduleNameMapper: Object.fromEntries(Object.entries(workspaces).map(([name, dir]) => [`^@bo/${name}$`, `<rootDir>/${dir}/src`])),
  testTimeout: 30_000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/tests/support/summary-reporter.js'],
};
