// `npm start`, and the test and benchmark harness (local/child-runtime.ts), run this file: it
// bundles the local runtime (local/build-runtime.mjs, in a process of its own) and runs the
// bundle in this process on plain Node. No TypeScript loader stays resident beside the gateway
// (tsx's loader thread held about 20 MiB), and what runs is built the way Lambda's code is.
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const built = spawnSync(process.execPath, [fileURLToPath(new URL('./build-runtime.mjs', import.meta.url))], {
  stdio: 'inherit',
});
if (built.status !== 0) {
  console.error('local runtime: the bundle could not be built (see above)');
  process.exit(1);
}

await import(pathToFileURL(fileURLToPath(new URL('./.start.bundle.mjs', import.meta.url))).href);
