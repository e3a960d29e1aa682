/** Three tiers: unit (beside the code), integration (real Postgres + NATS), e2e (whole stack over HTTP). */
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json', diagnostics: false }] };
const moduleNameMapper = {
  '^@acct/testing$': '<rootDir>/test/support',
  '^@acct/(.*)$': ['<rootDir>/libs/$1/src', '<rootDir>/services/$1/src', '<rootDir>/tools/$1/src'],
};
const base = { rootDir: __dirname, testEnvironment: 'node', transform, moduleNameMapper, modulePathIgnorePatterns: ['<rootDir>/.*/dist/'] };

module.exports = {
  maxWorkers: 2,
  // Postgres and NATS for a machine that runs neither (README: the two commands on a bare machine).
  globalSetup: '<rootDir>/test/support/global-setup.js',
  globalTeardown: '<rootDir>/test/support/global-teardown.js',
  testTimeout: 60000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: ['<rootDir>/{libs,services,tools,clients}/*/src/**/*.test.ts', '<rootDir>/test/deploy/**/*.test.ts'],
      testPathIgnorePatterns: ['\\.int\\.test\\.ts$'],
    },
    { ...base, displayName: 'integration', testMatch: ['<rootDir>/{libs,services,tools}/*/src/**/*.int.test.ts', '<rootDir>/test/integration/**/*.int.test.ts'] },
    { ...base, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e.test.ts'], setupFilesAfterEnv: ['<rootDir>/test/support/e2e-timeout.js'] },
  ],
};
