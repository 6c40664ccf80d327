// The console's build (local/build-console.mjs runs it; `npx vite build --config
// console/vite.config.mjs` does the same by hand). Preact's JSX through Vite's own transform
// (no Babel plugin), one hashed script and one hashed style sheet: nothing inline, so the
// served Content-Security-Policy can forbid inline code (local/console-files.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The polyfill would be an inline script; every browser the console supports preloads modules.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
