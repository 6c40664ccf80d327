import { existsSync } from 'node:fs';
import { processesNaming } from '../../../local/child-runtime.js';

/** Tests that look for processes read /proc: Linux only. */
export const onLinux = existsSync('/proc/self/cmdline') ? test : test.skip;

export { processesNaming };

/** Waits until no process names `text`; the caller's test timeout ends a wait for one that stays. */
export async function noProcessNaming(text: string): Promise<void> {
  while (processesNaming(text).length > 0) await new Promise((done) => setTimeout(done, 50));
}
