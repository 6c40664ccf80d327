import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LocalServicesReady } from './services-child.js';
import type { StandInCredentials } from './standins/signature-check.js';

export interface LocalServices extends LocalServicesReady {
  stop(): Promise<void>;
}

const CHILD = fileURLToPath(new URL('./services-child.ts', import.meta.url));
/**
 * Run from the runtime's bundle (local/launch.mjs), this module sits in local/.start.bundle.mjs,
 * and local/build-runtime.mjs bundled the child beside it: plain Node runs that. Run from its
 * source (tests), the child runs under tsx.
 */
const CHILD_BUNDLE = `${fileURLToPath(import.meta.url)}.services.mjs`;
const childArguments = () => (existsSync(CHILD_BUNDLE) ? [CHILD_BUNDLE] : ['--import', 'tsx', CHILD]);

/**
 * Starts local/services-child.ts in its own process and waits for its endpoints. Its stand-ins
 * accept requests signed with `credentials`, which it gets as its AWS environment (readable by
 * this user only, unlike its command line).
 */
export function startLocalServices(
  dataDir: string,
  credentials: StandInCredentials,
  timeoutMs = 30_000,
): Promise<LocalServices> {
  const child = spawn(process.execPath, [...childArguments(), JSON.stringify({ dataDir })], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: {
      ...process.env,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    },
    // Its own process group: a terminal's Ctrl-C must not stop the stand-ins while the gateway
    // drains. The runtime stops them; they exit by themselves when the IPC channel closes.
    detached: true,
  });
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error('local services did not start in time'));
    }, timeoutMs);
    child.once('message', (ready: LocalServicesReady) => {
      clearTimeout(timer);
      resolve({ ...ready, stop });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`local services exited during start (code ${code})`));
    });
  });
}
