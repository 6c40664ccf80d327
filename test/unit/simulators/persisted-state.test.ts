import { jest } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { changeListeners, persistState, type SimulatorState } from '../../../local/simulators/persisted-state.js';

/**
 * The fakes' state on disk (persisted-state.ts): changes are written at most once per delay
 * and off the request's path, a close writes at once, and a file that cannot be read, or was
 * written in another format, starts the store empty with a warning.
 */
let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'persisted-state-'));
  file = join(dir, 'nested', 'store.json');
});
afterEach(() => {
  jest.useRealTimers();
  jest.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** A store of numbers, counting its snapshots (one per write). */
function numberStore() {
  let items: number[] = [];
  const changes = changeListeners();
  const store = {
    snapshots: 0,
    restored: [] as unknown[],
    add(n: number) {
      items.push(n);
      changes.notify();
    },
    snapshot() {
      store.snapshots++;
      return items;
    },
    restore(snapshot: unknown) {
      store.restored.push(snapshot);
      items = (snapshot as number[] | undefined) ?? [];
    },
    onChange: changes.onChange,
  };
  return store satisfies SimulatorState;
}

const saved = () => JSON.parse(readFileSync(file, 'utf8')) as { version: number; state: unknown };

test('many changes are one write after the delay, not one each', () => {
  jest.useFakeTimers();
  const store = numberStore();
  const persisted = persistState(file, store, 250);
  for (let n = 0; n < 100; n++) store.add(n);
  expect(existsSync(file)).toBe(false);
  jest.advanceTimersByTime(249);
  expect(existsSync(file)).toBe(false);
  jest.advanceTimersByTime(1);
  expect(store.snapshots).toBe(1);
  expect(saved().state).toHaveLength(100);
  persisted.close();
  expect(store.snapshots).toBe(1);
});

test('close writes pending changes at once, then no longer listens', () => {
  jest.useFakeTimers();
  const store = numberStore();
  const persisted = persistState(file, store);
  store.add(7);
  persisted.close();
  expect(saved().state).toEqual([7]);
  store.add(8);
  jest.advanceTimersByTime(10_000);
  expect(saved().state).toEqual([7]);
});

test('a store started again over the file gets the snapshot back', () => {
  const first = numberStore();
  const persisted = persistState(file, first);
  first.add(1);
  first.add(2);
  persisted.close();
  const second = numberStore();
  persistState(file, second).close();
  expect(second.restored).toEqual([[1, 2]]);
});

test('a missing file starts empty quietly', () => {
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  const store = numberStore();
  persistState(file, store).close();
  expect(store.restored).toEqual([undefined]);
  expect(warn).not.toHaveBeenCalled();
  expect(existsSync(file)).toBe(false);
});

test.each([
  ['torn JSON', '{"version":1,"state":[1,'],
  ['another format', JSON.stringify({ version: 99, state: [1] })],
  ['no envelope', JSON.stringify([1, 2])],
])('%s starts empty with a warning', (_, text) => {
  writeFileSync(join(dir, 'store.json'), text);
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  const store = numberStore();
  persistState(join(dir, 'store.json'), store).close();
  expect(store.restored.at(-1)).toBeUndefined();
  expect(warn).toHaveBeenCalledTimes(1);
});

test('a snapshot the store refuses starts it empty with a warning', () => {
  writeFileSync(join(dir, 'store.json'), JSON.stringify({ version: 1, state: 'nonsense' }));
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  const restored: unknown[] = [];
  const refusing: SimulatorState = {
    snapshot: () => [],
    restore(snapshot) {
      restored.push(snapshot);
      if (snapshot !== undefined) throw new Error('not a list');
    },
    onChange: () => () => undefined,
  };
  persistState(join(dir, 'store.json'), refusing).close();
  expect(restored).toEqual(['nonsense', undefined]);
  expect(warn).toHaveBeenCalledWith(expect.stringContaining('not a list'));
});
