// `npm test`: the static checks (bin/static-checks.mjs), then every jest test. Given arguments
// (test paths, jest options), only jest runs, with them: the quick loop while working on a file.
// Both steps run even when the first fails, so one run reports everything; the exit is 1 if
// either failed.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { ensureChromium } from './ensure-browser.mjs';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const run = (argv) => spawnSync(process.execPath, argv, { cwd: root, stdio: 'inherit' }).status ?? 1;

const staticStatus = args.length === 0 ? run([resolve(root, 'bin/static-checks.mjs')]) : 0;
// The browser tests (test/browser/) need a chromium: found, or installed now, before jest starts.
// A run of named tests that names none of them does not look for one.
if (args.length === 0 || args.some((arg) => arg.includes('browser'))) {
  try {
    process.env.CHROMIUM_PATH = ensureChromium();
  } catch (error) {
    console.error(`browser tests: ${error.message}`);
  }
}
const jestStatus = run(['--experimental-vm-modules', resolve(root, 'node_modules/jest/bin/jest.js'), ...args]);
process.exit(staticStatus === 0 && jestStatus === 0 ? 0 : 1);
