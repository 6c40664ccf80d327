// Bundles the local runtime (local/start.ts with every handler) with esbuild, as each Lambda
// function is bundled for deployment, into the file named by argv[2]. local/launch.mjs runs
// this in a short-lived process of its own, so esbuild's memory never counts against the
// gateway process. Writes are atomic: runtimes starting together (parallel test workers) each
// read a whole bundle. After the bundle, the list of its sources (local/bundle-freshness.mjs),
// by which launch.mjs skips the build while none has changed.
import { build } from 'esbuild';
import { renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordBundleInputs } from './bundle-freshness.mjs';

const bundle = process.argv[2];
if (!bundle) throw new Error('usage: build-runtime.mjs <bundle file>');

const { outputFiles, metafile } = await build({
  entryPoints: [fileURLToPath(new URL('./start.ts', import.meta.url))],
  outfile: bundle,
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
