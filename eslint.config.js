// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dist-bin/**',
      'node_modules/**',
      'coverage/**',
      'demo-out/**',
      'bench/tmp/**',
      'fixtures/generated/**',
      'docs/api/**',
      '.stryker-tmp/**',
      'reports/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // bin/*.cjs start as CommonJS scripts (faster than a module: see bin/docextract.cjs); dependency-cruiser reads its config as CommonJS.
    files: ['bin/**/*.cjs', '.dependency-cruiser.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', __filename: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The review page's scripts run in the browser; tsc (tsconfig.page.json, DOM lib) checks every name they use.
    files: ['src/review-page/**/*.js'],
    rules: { 'no-undef': 'off' },
  },
);
