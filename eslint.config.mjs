// ESLint: typescript-eslint's type-checked recommended rules over every TypeScript source; Prettier
// owns formatting (eslint-config-prettier turns off the rules it would fight).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'deploy/k6/**',
      'test/support/summary-reporter.js',
      'test/support/pdf-text-cli.cjs',
      'test/support/chromium-path-cli.mjs',
      'test/support/global-setup.js',
      'test/support/e2e-timeout.js',
      'test/support/global-teardown.js',
      'jest.config.js',
      'eslint.config.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: ['./tsconfig.test.json'], tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    rules: {
      // Dropping a field by destructuring it beside ...rest is how the code omits keys.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // A `let` assigned once but read earlier in a closure (a readiness check before wiring exists) must stay `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // MikroORM's Migration.up() is async by contract even when it only queues addSql() calls.
    files: ['**/migrations/*.ts', 'libs/posting/src/migrations.ts'],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
  {
    // Tests (and the gateway's test fakes) read JSON bodies and fixtures as `any` on purpose, and
    // their fakes implement async interfaces without awaiting; the rest of the rules still apply.
    files: ['**/*.test.ts', 'test/**/*.ts', 'services/*/src/testing/**/*.ts'],
    rules: {
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  prettier,
);
