import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Tests that look for processes read /proc: Linux only. */
export const onLinux = existsSync('/proc/self/cmdline') ? test : test.skip;

/** Live processes whose command line names `text` (the runtime's children get its data folder there). */
export function processesNaming(text: string): string[] {
  return readdirSync('/proc').filter((pid) => {
    try {
      return (
        /^\d+$/.test(pid) && pid !== String(process.pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text)
      );
    } catch {
      return false;
    }
  });
}

/** Waits until no process names `text`; the caller's test timeout ends a wait for one that stays. */
export async function noProcessNaming(text: string): Promise<void> {
  while (processesNaming(text).length > 0) await new Promise((done) => setTimeout(done, 50));
}
