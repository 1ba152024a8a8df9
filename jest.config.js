/** Two projects: unit tests need no database; integration tests get a real PostgreSQL. */
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.json' }];

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
      transform: { '^.+\\.ts$': tsJest },
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      roots: ['<rootDir>/test/integration'],
      testMatch: ['**/*.test.ts'],
      transform: { '^.+\\.ts$': tsJest },
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
