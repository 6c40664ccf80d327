// Bundles the local runtime (local/start.ts with every handler) with esbuild, as each Lambda
// function is bundled for deployment, into the file named by argv[2]. local/launch.mjs runs
// this in a short-lived process of its own, so esbuild's memory never counts against the
// gateway process. Writes are atomic: runtimes starting together (parallel test workers) each
// read a whole bundle. After the bundle, the list of its sources (local/bundle-freshness.mjs),
// by which launch.mjs skips the build while none has changed.
import { build } from 'esbuild';
import { renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordBundleInputs } from './bundle-freshness.mjs';

const bundle = process.argv[2];
if (!bundle || !bundle.endsWith('.mjs')) throw new Error('usage: build-runtime.mjs <bundle file>.mjs');

// The runtime, and beside it its services child (local/services.ts runs `<bundle>.services.mjs`
// when there is one), so that neither needs a TypeScript loader.
const name = basename(bundle, '.mjs');
const { outputFiles, metafile } = await build({
  entryPoints: [
    { in: fileURLToPath(new URL('./start.ts', import.meta.url)), out: name },
    { in: fileURLToPath(new URL('./services-child.ts', import.meta.url)), out: `${name}.mjs.services` },
  ],
  outdir: dirname(bundle),
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  // Dependencies load from node_modules as they are; only this repository's code is bundled.
  packages: 'external',
  // For readable stack traces: NODE_OPTIONS=--enable-source-maps maps them to the sources.
  sourcemap: 'linked',
  write: false,
  metafile: true,
  logLevel: 'warning',
});

const writeAtomically = (path, contents) => {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
};
for (const file of outputFiles) writeAtomically(file.path, file.contents);
recordBundleInputs(bundle, [
  ...Object.keys(metafile.inputs).map((input) => resolve(input)),
  fileURLToPath(import.meta.url),
]);
