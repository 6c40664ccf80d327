// ESM jest: middy 7 is ESM-only, so tests run as native modules through ts-jest.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: { ignoreCodes: ['TS151001'] } }],
  },
  maxWorkers: 2,
  workerIdleMemoryLimit: '300MB',
  testTimeout: 30000,
};
