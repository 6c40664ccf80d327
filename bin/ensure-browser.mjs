// The browser the console's tests drive (test/browser/): Debian's chromium, found on the usual
// paths or $CHROMIUM_PATH, and installed with apt-get when missing (as root, else through
// `sudo -n`), so that `npm ci && npm test` on a fresh machine sets up everything the tests need.
// Prints the path found; exits 1 with the reason when there is none and it cannot be installed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/snap/bin/chromium'];

/** The path of a chromium binary, or undefined. */
export function findChromium() {
  const chosen = process.env.CHROMIUM_PATH;
  if (chosen) return existsSync(chosen) ? chosen : undefined;
  return CANDIDATES.find((path) => existsSync(path));
}

/** Finds chromium, or installs it; returns its path or throws with what to do instead. */
export function ensureChromium() {
  const found = findChromium();
  if (found) return found;
  if (process.env.CHROMIUM_PATH)
    throw new Error(`CHROMIUM_PATH names ${process.env.CHROMIUM_PATH}, which is not there`);
  if (process.platform !== 'linux' || !existsSync('/usr/bin/apt-get'))
    throw new Error('no chromium found: install Chromium and set CHROMIUM_PATH to its binary');
  const root = process.getuid?.() === 0;
  const sudo = root ? [] : ['sudo', '-n'];
  console.log('browser tests: installing Debian’s chromium (apt-get install chromium)…');
  const run = (args) => {
    const [command, ...rest] = [...sudo, ...args];
    return spawnSync(command, rest, {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status;
  };
  if (run(['apt-get', 'install', '-y', '--no-install-recommends', 'chromium']) !== 0) {
    run(['apt-get', 'update']);
    if (run(['apt-get', 'install', '-y', '--no-install-recommends', 'chromium']) !== 0)
      throw new Error(
        root
          ? 'apt-get could not install chromium (see above)'
          : 'chromium is missing and `sudo -n apt-get install chromium` was refused: run `sudo apt-get install chromium` once',
      );
  }
  const installed = findChromium();
  if (!installed) throw new Error('chromium was installed but its binary is not on a known path: set CHROMIUM_PATH');
  return installed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log(ensureChromium());
  } catch (error) {
    console.error(`browser tests: ${error.message}`);
    process.exit(1);
  }
}
