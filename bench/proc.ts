import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second for /proc/<pid>/stat CPU times (`getconf CLK_TCK`, 100 on Linux). */
export const CLK_TCK = (() => {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());
    return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU time (user + system, milliseconds) a process has used itself, over all its threads:
 * fields 14 (utime) and 15 (stime) of /proc/<pid>/stat. Fields 16-17 (cutime, cstime) hold
 * the time of waited-for children and are deliberately left out, so a child process such as
 * the embedded database is never counted here. Resolution is one tick (10 ms at 100 Hz).
 */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may contain spaces: split after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so field N is fields[N - 3].
  const utime = Number(fields[14 - 3]);
  const stime = Number(fields[15 - 3]);
  return ((utime + stime) * 1000) / CLK_TCK;
}

/** A line of /proc/<pid>/status in bytes (`VmHWM` peak resident set, `VmRSS` current). */
export function statusBytes(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** Direct children of a process (Linux ≥ 3.5 `/proc/<pid>/task/<tid>/children`), over every thread. */
export function childPids(pid: number): number[] {
  const pids: number[] = [];
  try {
    const tasks = readdirSync(`/proc/${pid}/task`);
    for (const task of tasks) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) pids.push(...text.split(' ').map(Number));
    }
  } catch {
    // Not Linux, or the process is gone: no children known.
  }
  return pids;
}

/** The command line of a process, arguments joined by spaces ('' once it is gone). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}
