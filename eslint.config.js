import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers' arrows (README, "Layout"): each folder may import only the folders listed for it,
 * so `resources/` and `engine/` meet in `campaign/` and never import each other. Tests and
 * fixtures may cross layers: they drive the product through more than one.
 */
const layers = {
  db: [],
  users: ['db'],
  audio: [],
  drivers: ['db', 'audio'],
  http: ['db', 'users'],
  campaign: ['db', 'http', 'drivers'],
  engine: ['db', 'http', 'drivers', 'campaign', 'audio'],
  webhooks: ['db', 'http', 'campaign'],
  resources: ['db', 'http', 'drivers', 'campaign', 'users', 'audio'],
};
const all = ['db', 'users', 'drivers', 'http', 'campaign', 'engine', 'resources', 'audio', 'webhooks'];
const boundaries = Object.entries(layers).map(([layer, allowed]) => ({
  files: [`src/${layer}/**/*.ts`],
  ignores: ['**/*.test.ts', '**/*.fixtures.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: all
          .filter((other) => other !== layer && !allowed.includes(other))
          .map((other) => ({ group: [`**/${other}/*`, `**/${other}/**`], message: `src/${layer}/ may not import src/${other}/ (README, "Layout")` })),
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', '.bench-tmp/', 'dist/', 'console/dist/', 'test-output/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  ...boundaries,
);
