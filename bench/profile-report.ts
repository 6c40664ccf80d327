import { readProfileOf, selfSamples, type Frame, type ResolveFrame, type Window } from './cpu-profile.js';
import { byCategory } from './profile-categories.js';
import { table } from './stats.js';

/** One process's share of a profiled phase: its profile and its measured CPU per request. */
export interface ProfiledProcess {
  readonly label: string;
  readonly pid: number;
  /** CPU per request from /proc (all threads), in microseconds: what the shares divide up. */
  readonly cpuUsPerRequest: number;
}

export interface ProfiledPhase {
  readonly label: string;
  readonly window: Window;
  readonly processes: readonly ProfiledProcess[];
}

const TOP_FUNCTIONS = 12;

/**
 * Prints, per phase, each process's CPU per request split by category (shares of its profile's
 * busy samples applied to its measured CPU), and the functions with the most self time.
 * Returns false when a profile is missing (the process did not stop cleanly).
 */
export function printProfileBreakdown(dir: string, phases: readonly ProfiledPhase[], resolve: ResolveFrame): boolean {
  let complete = true;
  const profiles = new Map<number, ReturnType<typeof readProfileOf>>();
  const profileOf = (pid: number) => {
    if (!profiles.has(pid)) profiles.set(pid, readProfileOf(dir, pid));
    return profiles.get(pid);
  };
  for (const phase of phases) {
    for (const proc of phase.processes) {
      const profile = profileOf(proc.pid);
      if (!profile) {
        console.log(`\n${phase.label}, ${proc.label}: no CPU profile from pid ${proc.pid} in ${dir}`);
        complete = false;
        continue;
      }
      const samples = selfSamples(profile, phase.window, resolve);
      const busy = [...samples.values()].reduce((a, b) => a + b, 0);
      if (busy === 0) continue;
      const us = (count: number) => `${Math.round((count / busy) * proc.cpuUsPerRequest)} µs`;
      const share = (count: number) => `${((count / busy) * 100).toFixed(1)}%`;
      console.log(
        `\n${phase.label}, ${proc.label} (pid ${proc.pid}): ${Math.round(proc.cpuUsPerRequest)} µs CPU/request, ` +
          `${busy} busy samples; self time by category\n`,
      );
      console.log(
        table([
          ['category', 'µs/request', 'share'],
          ...byCategory(samples).map(([category, count]) => [category, us(count), share(count)]),
        ]),
      );
      console.log(`\ntop functions by self time\n`);
      console.log(
        table([
          ['function', 'file', 'µs/request', 'share'],
          ...topFrames(samples).map(([frame, count]) => [
            `${frame.functionName || '(anonymous)'}${frame.native ? ' [native]' : ''}`,
            shortSource(frame.source),
            us(count),
            share(count),
          ]),
        ]),
      );
    }
  }
  return complete;
}

function topFrames(samples: ReadonlyMap<Frame, number>): [Frame, number][] {
  return [...samples].sort(([, a], [, b]) => b - a).slice(0, TOP_FUNCTIONS);
}

/** `node_modules/<package>/…` and repository paths, without the machine's folders. */
function shortSource(source: string): string {
  const modules = source.lastIndexOf('node_modules/');
  if (modules >= 0) return source.slice(modules);
  const repo = /\/(lambdas|local|lib|bench)\/.*/.exec(source);
  return repo ? repo[0].slice(1) : source;
}
