// Builds the console (console/, with console/vite.config.mjs) into console/dist, which the local
// runtime serves at / (local/console-files.ts). local/launch.mjs runs this in a process of its
// own when the build is missing or older than its sources, as it does the runtime's bundle; the
// browser tests and `npm run bench -- console` run it too. The build is written to a folder of
// its own and then swapped in, so a runtime serving the old one never reads half a build.
import { readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { recordBundleInputs } from './bundle-freshness.mjs';

export const consoleRoot = fileURLToPath(new URL('../console/', import.meta.url));
export const consoleDist = join(consoleRoot, 'dist');
/**
 * Written after each build, beside it rather than in it (nothing in dist/ but the build is
 * served): its freshness stands for the whole build's (local/bundle-freshness.mjs).
 */
export const consoleMarker = join(consoleRoot, '.dist-built');

/**
 * Every source of the build: the console's files, the folders under it (a new file changes its
 * folder's time; not console/ itself, where the build's own files are written), this script and
 * the lock file of the toolchain.
 */
function consoleInputs() {
  const inputs = [];
  const walk = (folder) => {
    if (folder !== consoleRoot) inputs.push(folder);
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name === 'dist' || entry.name.startsWith('.')) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else inputs.push(path);
    }
  };
  walk(consoleRoot);
  return [...inputs, fileURLToPath(import.meta.url), fileURLToPath(new URL('../package-lock.json', import.meta.url))];
}

export async function buildConsole() {
  const inputs = consoleInputs();
  const staging = join(consoleRoot, `.dist-${process.pid}`);
  await build({
    configFile: join(consoleRoot, 'vite.config.mjs'),
    build: { outDir: staging, emptyOutDir: true },
  });
  const previous = join(consoleRoot, `.dist-old-${process.pid}`);
  try {
    renameSync(consoleDist, previous);
  } catch {
    // no build yet
  }
  try {
    renameSync(staging, consoleDist);
  } catch (error) {
    // Another runtime starting at the same moment swapped its own build in first: the same
    // sources, so that one serves, and this one goes.
    if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    rmSync(staging, { recursive: true, force: true });
  }
  rmSync(previous, { recursive: true, force: true });
  writeFileSync(consoleMarker, `${new Date().toISOString()}\n`);
  recordBundleInputs(consoleMarker, inputs);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildConsole();
