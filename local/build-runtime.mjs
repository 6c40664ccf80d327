// Bundles the local runtime (local/start.ts with every handler) with esbuild, as each Lambda
// function is bundled for deployment. local/launch.mjs runs this in a short-lived process of
// its own, so esbuild's memory never counts against the gateway process.
//
// The bundle is written beside its source, as local/.start.bundle.mjs (git-ignored), so the
// files the runtime finds relative to itself (local/dynamodb-child.mjs, the services child)
// are the same ones bundled or not. Writes are atomic: runtimes starting together (parallel
// test workers) each read a whole bundle.
import { build } from 'esbuild';
import { renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BUNDLE = fileURLToPath(new URL('./.start.bundle.mjs', import.meta.url));

const { outputFiles } = await build({
  entryPoints: [fileURLToPath(new URL('./start.ts', import.meta.url))],
  outfile: BUNDLE,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  // Dependencies load from node_modules as they are; only this repository's code is bundled.
  packages: 'external',
  // For readable stack traces: NODE_OPTIONS=--enable-source-maps maps them to the sources.
  sourcemap: 'linked',
  write: false,
  logLevel: 'warning',
});

for (const file of outputFiles) {
  const temporary = `${file.path}.${process.pid}.tmp`;
  writeFileSync(temporary, file.contents);
  renameSync(temporary, file.path);
}
