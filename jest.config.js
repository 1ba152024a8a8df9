/**
 * Four projects: unit tests need no database; integration tests get a real PostgreSQL; e2e drives
 * the web UI in headless Chromium against the server; the reliability suite (faults, fuzzed input, load) also does, and runs at CI scale here and at full
 * scale with `npm run test:reliability`, which prints its figures.
 */
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.json' }];
// jose ships only ES modules: jest (CommonJS) gets its files compiled like ours.
const transform = {
  '^.+\\.ts$': tsJest,
  '/node_modules/jose/.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022', isolatedModules: true } }],
};
const transformIgnorePatterns = ['/node_modules/(?!jose/)'];

/** @type {import('jest').Config} */
module.exports = {
  // Integration tests start servers and child processes; machines here are shared and noisy.
  testTimeout: 120000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/unit'],
      testMatch: ['**/*.test.ts'],
      transform,
      transformIgnorePatterns,
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/integration'],
      testMatch: ['**/*.test.ts'],
      transform,
      transformIgnorePatterns,
      globalSetup: '<rootDir>/test/support/database/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/database/global-teardown.ts',
    },
    {
      displayName: 'reliability',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/reliability'],
      testMatch: ['**/*.test.ts'],
      transform,
      transformIgnorePatterns,
      globalSetup: '<rootDir>/test/support/database/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/database/global-teardown.ts',
    },
    {
      // The web UI in headless Chromium (Debian's package) against the real server and database.
      displayName: 'e2e',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/e2e'],
      testMatch: ['**/*.test.ts'],
      transform,
      transformIgnorePatterns,
      globalSetup: '<rootDir>/test/support/database/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/database/global-teardown.ts',
    },
  ],
  reporters: ['default', '<rootDir>/test/reliability/summary-reporter.cjs'],
};
