// Lint for correctness (floating promises, any, import cycles) and for the part boundaries (README.md
// "A tour of the parts"): protocol imports nothing of ours; engine never imports the gateway; backends
// never import transports.
import js from '@eslint/js';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const restrict = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: patterns.map((group) => ({ group: [group], message })) }],
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.test-build/**', 'coverage/**', '.ci/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      'import-x/no-cycle': 'error',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, project: null },
      globals: {
        process: 'readonly',
        module: 'writable',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
  },
  {
    files: ['src/protocol/**'],
    rules: restrict(
      ['../gateway/*', '../engine/*', '../providers/*', '../cli/*', '../extension/*', '../../*'],
      'protocol imports nothing of ours',
    ),
  },
  {
    files: ['src/engine/**'],
    rules: restrict(
      ['**/gateway/**', '**/cli/**', '**/providers/**', '**/extension/**'],
      'the engine knows only protocol',
    ),
  },
  {
    // A scratch folder in a test comes from tempDir, which removes it at exit if the test did not.
    files: ['test/**'],
    ignores: ['test/helpers/temp-dir.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        ...['mkdtemp', 'mkdtempSync'].map((property) => ({
          object: 'fs',
          property,
          message: 'use tempDir (test/helpers/temp-dir.ts): it is removed at exit',
        })),
      ],
      'no-restricted-imports': [
        'error',
        ...['node:fs', 'fs', 'node:fs/promises', 'fs/promises'].map((name) => ({
          name,
          importNames: ['mkdtemp', 'mkdtempSync'],
          message: 'use tempDir (test/helpers/temp-dir.ts): it is removed at exit',
        })),
      ],
    },
  },
  {
    files: ['src/gateway/backends/**'],
    rules: restrict(['**/http/**', '**/ws/**', '**/mcp/**'], 'backends never import transports'),
  },
);
