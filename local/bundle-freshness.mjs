// Whether the local runtime's bundle was built from the sources as they are. local/build-runtime.mjs
// writes `<bundle>.inputs.json` after the bundle: every source file esbuild read (and the build
// script itself) with its size and modification time. A test run starts dozens of runtimes
// from one tree, and each would otherwise rebuild the same bundle.
import { readFileSync, statSync, writeFileSync, renameSync } from 'node:fs';

const inputsFile = (bundle) => `${bundle}.inputs.json`;

/** Records the sources a bundle was built from (paths absolute). */
export function recordBundleInputs(bundle, sources) {
  const inputs = sources.map((path) => {
    const { size, mtimeMs } = statSync(path);
    return [path, size, mtimeMs];
  });
  const temporary = `${inputsFile(bundle)}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify({ inputs }));
  renameSync(temporary, inputsFile(bundle));
}

/** True when the bundle exists and every source it was built from is unchanged; false otherwise. */
export function bundleIsCurrent(bundle) {
  try {
    statSync(bundle);
    const { inputs } = JSON.parse(readFileSync(inputsFile(bundle), 'utf8'));
    return (
      inputs.length > 0 &&
      inputs.every(([path, size, mtimeMs]) => {
        const now = statSync(path);
        return now.size === size && now.mtimeMs === mtimeMs;
      })
    );
  } catch {
    return false;
  }
}
