import { selfSamples, type CpuProfile, type ResolveFrame } from '../../../bench/cpu-profile.js';
import { byCategory, categoryOf } from '../../../bench/profile-categories.js';

/**
 * The pinned benchmark's profile breakdown: samples inside a phase's window, counted by the
 * function that was running, a native function charged to the file that called it.
 */

const node = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url, lineNumber: 0, columnNumber: 0 },
  children,
});

const profile: CpuProfile = {
  startTime: 1_000,
  nodes: [
    node(1, '(root)', '', [2, 5, 6, 7, 8]),
    node(2, 'writeGeneric', 'node:internal/stream_base_commons', [3]),
    node(3, 'writev', '', [4]),
    node(4, 'stringify', ''),
    node(5, '(idle)', ''),
    node(6, '(garbage collector)', ''),
    node(7, 'publishMetrics', 'file:///repo/lambdas/observability/metrics.ts'),
    node(8, 'URL', 'node:internal/url', [9]),
    node(9, 'parse', ''),
  ],
  // Sampled at 1_010, 1_020, ... 1_090.
  samples: [3, 3, 5, 6, 7, 4, 3, 9, 7],
  timeDeltas: [10, 10, 10, 10, 10, 10, 10, 10, 10],
};

const asIs: ResolveFrame = (frame) => ({ functionName: frame.functionName, source: frame.url });

test('counts busy samples inside the window by leaf frame; natives carry their caller’s file', () => {
  const counts = selfSamples(profile, { startUs: 1_015, endUs: 1_085 }, asIs);
  const named = Object.fromEntries(
    [...counts].map(([frame, count]) => [`${frame.functionName}@${frame.source}`, count]),
  );
  expect(named).toEqual({
    'writev@node:internal/stream_base_commons': 2, // 1_020 and 1_070; 1_010 is before the window
    '(garbage collector)@': 1,
    'publishMetrics@file:///repo/lambdas/observability/metrics.ts': 1, // 1_050; 1_090 is after it
    'stringify@node:internal/stream_base_commons': 1,
    'parse@node:internal/url': 1,
  });
  expect([...counts.keys()].find((frame) => frame.functionName === 'writev')!.native).toBe(true);
});

test('categories: natives by their caller, JSON builtins wherever called, URL parsing is not JSON', () => {
  const counts = selfSamples(profile, { startUs: 0, endUs: Number.MAX_SAFE_INTEGER }, asIs);
  expect(Object.fromEntries(byCategory(counts))).toEqual({
    'HTTP and sockets (node)': 4, // writev ×3, URL parse
    'logging, metrics, tracing': 2,
    'garbage collection': 1,
    JSON: 1,
  });
  expect(categoryOf({ functionName: 'registerDestroyHook', source: 'node:internal/async_hooks', native: true })).toBe(
    'async hooks and context tracking',
  );
  expect(categoryOf({ functionName: 'run', source: '/repo/local/gateway-server.ts', native: false })).toBe(
    'local adapter (local/, not in Lambda)',
  );
  expect(categoryOf({ functionName: '_get', source: '/repo/node_modules/classic-level/index.js', native: false })).toBe(
    'LevelDB',
  );
});
