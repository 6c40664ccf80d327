import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A fake's job state on disk, so `npm start` restarted over the same data folder finds the
 * tasks, predictions and files it handed out before, as a real upstream outlives a gateway
 * restart. The stores know nothing of files: they give a snapshot, take one back, and say
 * when they changed. Writes are debounced (at most one every `STATE_WRITE_DELAY_MS` after a
 * change, off the request's path) and atomic (temp file + rename); a stop flushes at once.
 * A missing, unreadable or foreign file means starting empty, with a warning, never a crash.
 */

/** What a store offers to be persisted. */
export interface SimulatorState {
  /** The whole state as JSON-ready data. */
  snapshot(): unknown;
  /** Replaces the whole state with a snapshot's (undefined: empty); throws on one it cannot read. */
  restore(snapshot: unknown): void;
  /** Calls `listener` after each change; answers the way to stop listening. */
  onChange(listener: () => void): () => void;
}

export interface PersistedState {
  /** Writes now, synchronously, if anything changed since the last write. */
  flush(): void;
  /** Stops listening to the store, after a last flush. */
  close(): void;
}

export const STATE_WRITE_DELAY_MS = 250;
/** Bumped when a snapshot's shape changes: an older file then starts the fake empty. */
const FORMAT_VERSION = 1;

/** Restores `state` from `file` and keeps the file up to date with its changes. */
export function persistState(file: string, state: SimulatorState, delayMs = STATE_WRITE_DELAY_MS): PersistedState {
  restoreFrom(file, state);
  let timer: NodeJS.Timeout | undefined;
  let dirty = false;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (!dirty) return;
    dirty = false;
    writeSnapshot(file, state.snapshot());
  };
  const stopListening = state.onChange(() => {
    dirty = true;
    if (timer) return;
    timer = setTimeout(flush, delayMs);
    // A pending write never keeps the process alive: a clean stop flushes it.
    timer.unref();
  });
  return {
    flush,
    close() {
      stopListening();
      flush();
    },
  };
}

/** Listeners of one store's changes: what a store needs for `onChange`. */
export function changeListeners(): { notify(): void; onChange(listener: () => void): () => void } {
  const listeners = new Set<() => void>();
  return {
    notify: () => listeners.forEach((listener) => listener()),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Several stores persisted as one snapshot, each under its own key. */
export function combinedState(parts: Readonly<Record<string, SimulatorState>>): SimulatorState {
  return {
    snapshot: () => Object.fromEntries(Object.entries(parts).map(([key, part]) => [key, part.snapshot()])),
    restore(snapshot) {
      const saved = (snapshot ?? {}) as Record<string, unknown>;
      if (typeof saved !== 'object' || Array.isArray(saved)) throw new Error('not an object');
      for (const [key, part] of Object.entries(parts)) part.restore(saved[key]);
    },
    onChange(listener) {
      const stops = Object.values(parts).map((part) => part.onChange(listener));
      return () => stops.forEach((stop) => stop());
    },
  };
}

function restoreFrom(file: string, state: SimulatorState): void {
  let saved: { version?: unknown; state?: unknown } | undefined;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8')) as typeof saved;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') warn(file, error);
    return state.restore(undefined);
  }
  try {
    if (saved?.version !== FORMAT_VERSION) throw new Error(`format ${String(saved?.version)}, not ${FORMAT_VERSION}`);
    state.restore(saved.state);
  } catch (error) {
    warn(file, error);
    state.restore(undefined);
  }
}

/** Temp file + rename: a crash mid-write leaves the previous file, never a torn one. */
export function writeJsonAtomically(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, JSON.stringify(value));
  renameSync(temp, file);
}

function writeSnapshot(file: string, snapshot: unknown): void {
  try {
    writeJsonAtomically(file, { version: FORMAT_VERSION, state: snapshot });
  } catch (error) {
    // A full disk loses the state of a restart, not the simulator: it keeps serving.
    console.warn(`simulator state: could not write ${file} (${String(error)})`);
  }
}

const warn = (file: string, error: unknown) =>
  console.warn(`simulator state: ${file} is unreadable (${String(error)}); starting empty`);
