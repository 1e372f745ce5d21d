import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettierConfig from 'eslint-config-prettier';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

// Only the engine driver speaks the engine's API; tests and benchmarks outside the core may look behind its back.
const noDockerode = {
  name: 'dockerode',
  message: 'Only electron/core/engine/ may import dockerode: go through the ContainerEngine interface.',
};

const noElectronImports = {
  'no-restricted-imports': [
    'error',
    {
      paths: [noDockerode],
      patterns: [
        {
          group: ['**/electron/**', '../electron', '../../electron', 'electron'],
          message:
            'The renderer and the CLI talk to the core through shared/ and the HTTP API only, never by importing electron/.',
        },
      ],
    },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.tsbuild/', 'bench/results/', 'test-results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettierConfig,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    ignores: ['electron/core/engine/**', 'test-support/**', 'bench/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [noDockerode] }] },
  },
  { files: ['renderer/**/*.{ts,tsx}', 'cli/**/*.{ts,mjs}'], rules: noElectronImports },
  // The window: functions fit on a screen, files stay under 400 lines, and no module imports itself back.
  {
    files: ['renderer/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js'] })],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    },
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      'import-x/no-cycle': 'error',
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noDockerode],
          patterns: [
            {
              group: ['../electron/**', '../renderer/**', '../cli/**', 'node:*', 'electron'],
              message: 'shared/ is the contract: it imports nothing from the rooms and nothing platform-specific.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Buffer: 'readonly',
      },
    },
  },
);
