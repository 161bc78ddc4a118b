// ESLint flat config for the whole monorepo: type-aware TypeScript rules, Prettier owns the
// formatting, and the architecture as rules (a service never imports another service; libs and
// contracts never import services).
import { readdirSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const SERVICES = readdirSync(new URL('./services/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

const CODE = '**/*.{ts,mts,cts,js,mjs,cjs}';

/** Package-name imports a workspace may not make: another service (and, for a service, the CLI). */
function forbiddenPackages(services, who, { cli }) {
  return [
    {
      group: [
        ...services.flatMap((name) => [`@flowmesh/${name}`, `@flowmesh/${name}/*`]),
        ...(cli ? ['@flowmesh/cli', '@flowmesh/cli/*'] : []),
      ],
      message: `${who} never imports ${cli ? 'another service or the CLI' : 'a service'}: call it through its contract in @flowmesh/contracts over NATS.`,
    },
  ];
}

/** The workspace folder a repository-relative path belongs to, or undefined outside them. */
function workspaceOf(path) {
  const [top, name] = path.split('/');
  if (top === 'services' || top === 'libs') return name ? `${top}/${name}` : undefined;
  if (top === 'contracts' || top === 'cli') return top;
  return undefined;
}

/**
 * A relative import must stay inside its own workspace: code of another workspace is reached by
 * its package name (so its public exports, and the build order, hold), never by a path into it.
 */
const noRelativeEscape = {
  meta: {
    type: 'problem',
    docs: { description: 'Relative imports stay inside their own workspace.' },
    schema: [],
    messages: {
      escape:
        "'{{source}}' leaves {{workspace}} for {{target}}: import shared code by its package name (@flowmesh/contracts, @flowmesh/<lib>), and never import another service.",
    },
  },
  create(context) {
    const root = import.meta.dirname;
    const fromFile = relative(root, context.filename).split(sep).join('/');
    const workspace = workspaceOf(fromFile);
    if (!workspace) return {};
    const check = (node) => {
      const source = node?.type === 'Literal' && typeof node.value === 'string' ? node.value : undefined;
      if (!source || !source.startsWith('.')) return;
      const target = relative(root, resolve(dirname(context.filename), source))
        .split(sep)
        .join('/');
      if (target === workspace || target.startsWith(`${workspace}/`)) return;
      context.report({ node, messageId: 'escape', data: { source, workspace, target } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

export default defineConfig(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/coverage/**',
      '**/*.d.ts',
      '.flowmesh/**',
      '.tools/**',
      '.helm/**',
      'bench/results/**',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.{ts,mts,cts}'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        // One program over every TypeScript file, tests and scripts included (the workspaces'
        // own tsconfigs leave tests out of the build).
        project: ['./tsconfig.eslint.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      // Nest modules are classes with only decorators.
      '@typescript-eslint/no-extraneous-class': 'off',
    },
  },
  {
    files: ['**/*.spec.ts', '**/test/**/*.ts', 'e2e/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // expect(service.method).toHaveBeenCalled() passes methods around unbound on purpose.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: [CODE],
    plugins: { flowmesh: { rules: { 'no-relative-escape': noRelativeEscape } } },
    rules: { 'flowmesh/no-relative-escape': 'error' },
  },
  ...SERVICES.map((service) => ({
    files: [`services/${service}/${CODE}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: forbiddenPackages(
            SERVICES.filter((other) => other !== service),
            `services/${service}`,
            { cli: true },
          ),
        },
      ],
    },
  })),
  {
    files: [`libs/${CODE}`, `contracts/${CODE}`],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: forbiddenPackages(SERVICES, 'Shared code (libs, contracts)', { cli: false }) },
      ],
    },
  },
  prettier,
);
