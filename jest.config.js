// ESM jest: middy 7 is ESM-only, so tests run as native modules, their TypeScript stripped by
// esbuild (test/support/typescript-transform.mjs; the static step checks the types). Three
// workers on two cores: integration tests spend much of their time waiting on their gateways
// and on timeouts, which a third worker fills. A worker whose heap passed 300 MB is replaced
// after its file: each file evaluates its modules in a fresh context, and the old ones are
// never collected.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': '<rootDir>/test/support/typescript-transform.mjs',
  },
  // Jest's order, with the template groups weighed by the cases they run (test/support/test-order.mjs).
  testSequencer: '<rootDir>/test/support/test-order.mjs',
  maxWorkers: 3,
  workerIdleMemoryLimit: '300MB',
  testTimeout: 30000,
};
