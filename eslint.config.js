// ESLint flat config. `npm run lint` runs tsc and then this; bin/static-checks.mjs runs it
// under `npm test` too, so CI enforces it.
// Only the syntactic presets: the type-checked ones would type the whole program a second time
// (tsc already does), making lint several times slower for little gain here.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: [
      '**/node_modules/',
      'cdk.out/',
      '.local/',
      'coverage/',
      'bench/.out/',
      'local/.start.bundle.mjs*',
      'console/dist/',
      'console/.dist*',
      'test-artifacts/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      // Plain .js/.mjs files (configs, local/dynamodb-child.mjs) run on Node; TypeScript files
      // get no-undef turned off by typescript-eslint, as the compiler checks names itself.
      globals: { ...globals.node },
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    rules: {
      // `_`-prefixed names mark arguments a signature requires but the body does not use,
      // and destructured names dropped on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
      // `for (;;)` / `while (true)` read loops that exit by return or break are deliberate.
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // The console runs in the browser: its names are the DOM's, not Node's.
    files: ['console/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Tests look at response bodies whose shape is what is under test; typing them `any`
    // is the point there, so the rule is off for tests rather than disabled line by line.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
