import { readdirSync, readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * V8 CPU profiles (`node --cpu-prof`) read back for a benchmark: which functions were running,
 * within a window of the run, mapped through source maps to the files they came from.
 */

/** The parts of a `.cpuprofile` (Chrome DevTools protocol `Profiler.Profile`) read here. */
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  /** Microseconds on the monotonic clock (`process.hrtime`), comparable between processes. */
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileNode {
  readonly id: number;
  readonly children?: readonly number[];
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    /** 0-based, where the function begins. */
    readonly lineNumber: number;
    readonly columnNumber: number;
  };
}

/** A sampled function: its name and the file it is in (after source maps: the original file). */
export interface Frame {
  readonly functionName: string;
  /** `node:…` for Node's own modules, a path for files, '' for pseudo-frames such as `(program)`. */
  readonly source: string;
  /**
   * A V8 builtin or native function (`writev`, `stringify`): it has no file, so `source` is its
   * nearest caller's, which says what the work was for.
   */
  readonly native: boolean;
}

/** A call frame as it is in the profile, before any source map. */
export type CallFrame = ProfileNode['callFrame'];

/** A frame of a file as the source maps place it (`native` is settled by the profile's tree). */
export type ResolveFrame = (frame: CallFrame) => { readonly functionName: string; readonly source: string };

/** A span of the run on the monotonic clock, in microseconds. */
export interface Window {
  readonly startUs: number;
  readonly endUs: number;
}

/** Now on the clock of profile timestamps (CLOCK_MONOTONIC, microseconds). */
export const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/**
 * Samples of the profile taken inside the window, counted per leaf frame (self time). V8's
 * sampler interrupts the thread while it runs, so sample counts follow the thread's CPU time;
 * the time between samples would also count the time it waited for the core. `(idle)`
 * samples (the event loop waiting) are left out.
 */
export function selfSamples(profile: CpuProfile, window: Window, resolve: ResolveFrame): Map<Frame, number> {
  const frames = attributedFrames(profile, resolve);
  const counts = new Map<Frame, number>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (at < window.startUs || at > window.endUs) continue;
    const frame = frames.get(profile.samples[i]!);
    if (!frame || frame.functionName === '(idle)') continue;
    counts.set(frame, (counts.get(frame) ?? 0) + 1);
  }
  return counts;
}

/**
 * Each node's frame; a native function's carries the source of its nearest caller that has one.
 * Frames are shared between nodes with the same name and source, so counts add up per frame.
 */
function attributedFrames(profile: CpuProfile, resolve: ResolveFrame): Map<number, Frame> {
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const interned = new Map<string, Frame>();
  const frames = new Map<number, Frame>();
  const frameOf = (id: number): Frame => {
    const known = frames.get(id);
    if (known) return known;
    const { callFrame } = nodes.get(id)!;
    const own = resolve(callFrame);
    const isNative = callFrame.url === '' && !callFrame.functionName.startsWith('(');
    const parent = parents.get(id);
    const source = isNative && parent !== undefined ? frameOf(parent).source : own.source;
    const key = `${own.functionName}\0${source}\0${isNative}`;
    let frame = interned.get(key);
    if (!frame) {
      frame = { functionName: own.functionName, source, native: isNative };
      interned.set(key, frame);
    }
    frames.set(id, frame);
    return frame;
  };
  for (const node of profile.nodes) frameOf(node.id);
  return frames;
}

/** A bundle as the profile names it (the path it ran from), and where its source map is now. */
export interface BundleMap {
  readonly bundle: string;
  readonly map: string;
}

/**
 * Maps call frames of bundled files to their original sources through each bundle's linked
 * source map, read once, when the resolver is made.
 */
export function sourceResolver(bundles: readonly BundleMap[]): ResolveFrame {
  const maps = new Map<string, SourceMap>();
  for (const { bundle, map } of bundles) {
    const payload = JSON.parse(readFileSync(map, 'utf8')) as SourceMapPayload;
    maps.set(bundle, new SourceMap(payload));
  }
  return (callFrame) => ({ functionName: callFrame.functionName, source: originalSource(callFrame, maps) });
}

function originalSource(callFrame: CallFrame, maps: ReadonlyMap<string, SourceMap>): string {
  const url = callFrame.url;
  if (!url.startsWith('file://')) return url;
  const path = fileURLToPath(url);
  const map = maps.get(path);
  if (!map) return path;
  const entry = map.findEntry(callFrame.lineNumber, callFrame.columnNumber);
  // Relative to the map's folder, as esbuild writes them (`../lambdas/...` from local/).
  return 'originalSource' in entry ? fileURLToPath(new URL(entry.originalSource, url)) : path;
}

/** The profile a process wrote (`CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`), main thread. */
export function readProfileOf(dir: string, pid: number): CpuProfile | undefined {
  const name = readdirSync(dir).find((file) => file.endsWith('.cpuprofile') && file.split('.')[3] === String(pid));
  return name ? (JSON.parse(readFileSync(join(dir, name), 'utf8')) as CpuProfile) : undefined;
}
