// `npm start`, and the test and benchmark harness (local/child-runtime.ts), run this file: it
// bundles the local runtime (local/build-runtime.mjs, in a process of its own) unless the
// bundle was built from the sources as they are, and runs the bundle in this process on plain
// Node. No TypeScript loader stays resident beside the gateway
// (tsx's loader thread held about 20 MiB), and what runs is built the way Lambda's code is.
//
// The bundle is written beside its source (git-ignored), so the files the runtime finds
// relative to itself (local/dynamodb-child.mjs, the services child) are the same ones
// bundled or not.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bundleIsCurrent } from './bundle-freshness.mjs';

// A profiled benchmark run names a bundle of its own (GATEWAY_BUNDLE_TAG), so the positions in
// its CPU profile point into the file it ran, whatever runtimes start meanwhile and rebuild the
// shared one.
const tag = process.env.GATEWAY_BUNDLE_TAG ?? '';
if (!/^[A-Za-z0-9-]{0,40}$/.test(tag)) {
  console.error('local runtime: GATEWAY_BUNDLE_TAG may hold only letters, digits and dashes (at most 40)');
  process.exit(1);
}
const bundle = new URL(tag ? `./.start.bundle.mjs-${tag}.mjs` : './.start.bundle.mjs', import.meta.url);

if (!bundleIsCurrent(fileURLToPath(bundle))) {
  const built = spawnSync(
    process.execPath,
    [fileURLToPath(new URL('./build-runtime.mjs', import.meta.url)), fileURLToPath(bundle)],
    { stdio: 'inherit' },
  );
  if (built.status !== 0) {
    console.error('local runtime: the bundle could not be built (see above)');
    process.exit(1);
  }
}

// The console (console/), served at / by the runtime: built the same way, when missing or stale.
// A console that cannot be built leaves the API running; the reason is printed above.
const consoleMarker = fileURLToPath(new URL('../console/.dist-built', import.meta.url));
if (!bundleIsCurrent(consoleMarker)) {
  const built = spawnSync(process.execPath, [fileURLToPath(new URL('./build-console.mjs', import.meta.url))], {
    stdio: 'inherit',
  });
  if (built.status !== 0)
    console.error('local runtime: the console could not be built (see above); the API runs without it');
}

await import(bundle.href);
