import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettierConfig from 'eslint-config-prettier';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

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

/**
 * The TypeScript parser, with every import read as a value import. import-x's
 * no-cycle skips `import type` (it has no runtime effect), but a cycle through
 * types is still two modules that cannot be understood apart (the issue names
 * electron/core/boxes/{box-row,fork-source,service}.ts): counting them is the
 * point. Only `importKind`/`exportKind` change, after the parse, so the scope
 * analysis the other rules use is the parser's own.
 */
const parserCountingTypeImports = {
  meta: { name: 'typescript-eslint/parser, type imports as edges' },
  parseForESLint(code, options) {
    const result = tseslint.parser.parseForESLint(code, options);
    for (const node of result.ast.body) {
      if (!['ImportDeclaration', 'ExportNamedDeclaration', 'ExportAllDeclaration'].includes(node.type)) continue;
      if (node.importKind === 'type') node.importKind = 'value';
      if (node.exportKind === 'type') node.exportKind = 'value';
      for (const s of node.specifiers ?? []) {
        if (s.importKind === 'type') s.importKind = 'value';
        if (s.exportKind === 'type') s.exportKind = 'value';
      }
    }
    return result;
  },
};

/**
 * The core's modules talk through ports (STYLE.md, "A resource is a module"): from another
 * module's folder a core file may import its `port.ts` and its module (`index.ts`), nothing
 * else. The folders that are no module (the engine driver, HTTP, the database, the event bus,
 * archives, the window's files) may be imported anywhere.
 */
const modulePorts = {
  'no-restricted-imports': [
    'error',
    {
      paths: [noDockerode],
      patterns: [
        {
          regex: '^\\.\\./(?!(?:engine|http|db|events|archives|ui)/)[a-z-]+/(?!(?:port|index)$).+$',
          message:
            "Another module's files are its own: import its port.ts (the interface it offers) or, for `needs`, its index.ts.",
        },
      ],
    },
  ],
};

/** Where files and functions keep to a screen (STYLE.md). */
const SIZED = ['electron', 'cli', 'shared', 'sdk', 'test-support', 'bench', 'scripts', 'renderer'].flatMap((dir) => [
  `${dir}/**/*.ts`,
  `${dir}/**/*.tsx`,
  `${dir}/**/*.mjs`,
  `${dir}/**/*.js`,
]);

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'sdk/dist/', '.tsbuild/', 'bench/results/', 'test-results/'] },
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
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parser: parserCountingTypeImports },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/external-module-folders': ['node_modules'],
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] })],
    },
    // ignoreExternal: a cycle is ours to find; walking node_modules' imports for one took 90% of the lint.
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: SIZED,
    ignores: ['**/*.test.ts'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    ignores: ['electron/core/engine/**', 'test-support/**', 'bench/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [noDockerode] }] },
  },
  { files: ['renderer/**/*.{ts,tsx}', 'cli/**/*.{ts,mjs}', 'sdk/**/*.ts'], rules: noElectronImports },
  {
    files: ['electron/core/**/*.ts'],
    // The engine driver imports no module (and alone may import dockerode).
    ignores: ['**/*.test.ts', 'electron/core/reliability/**', 'electron/core/engine/**'],
    rules: modulePorts,
  },
  {
    // The SDK is shared's client with a Box-shaped surface: platform-neutral but for finding a
    // local core (connection.ts), and never the rooms' code.
    files: ['sdk/src/**/*.ts'],
    ignores: ['**/*.test.ts', 'sdk/src/connection.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noDockerode],
          patterns: [
            {
              group: ['**/electron/**', '**/cli/**', '**/renderer/**', 'node:*', 'electron'],
              message: 'sdk/src imports shared/ and its own files; only connection.ts reads the disk (node:*).',
            },
          ],
        },
      ],
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
