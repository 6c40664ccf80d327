import type { Frame } from './cpu-profile.js';

/**
 * What a sampled function's time is spent on, for the pinned benchmark's breakdown. The first
 * rule that matches names the category. A V8 builtin or native function (no file of its own:
 * `writev`, `registerDestroyHook`) is judged by the file of the function that called it
 * (cpu-profile.ts), except the JSON builtins, which are their own category wherever called.
 */
export const CATEGORIES = [
  'garbage collection',
  'async hooks and context tracking',
  'logging, metrics, tracing',
  'JSON',
  'DynamoDB client and marshalling',
  'crypto (hashes, signatures, ids)',
  'HTTP and sockets (node)',
  'middleware and HTTP layer (middy, lambdas/http)',
  'local adapter (local/, not in Lambda)',
  'gateway logic (lambdas/)',
  'event loop (ticks, timers, events)',
  'dynalite (request handling)',
  'LevelDB',
  'embedded DynamoDB layers (local/dynamodb-*.mjs)',
  'V8 and native, unattributed',
  'other',
] as const;

export type Category = (typeof CATEGORIES)[number];

const JSON_BUILTINS = new Set(['stringify', 'parse', 'JsonStringify', 'JsonParse']);

const RULES: readonly (readonly [Category, (frame: Frame) => boolean])[] = [
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  // Node's URL parser is a native `parse` too, called from its URL module.
  ['JSON', (f) => f.native && JSON_BUILTINS.has(f.functionName) && f.source !== 'node:internal/url'],
  [
    'async hooks and context tracking',
    (f) =>
      /node_modules\/(@aws\/lambda-invoke-store|@opentelemetry\/context-async-hooks)\//.test(f.source) ||
      /^node:internal\/(async_hooks|async_context_frame|async_local_storage)/.test(f.source) ||
      f.source === 'node:async_hooks',
  ],
  [
    'logging, metrics, tracing',
    (f) =>
      /node_modules\/(@aws-lambda-powertools|@opentelemetry)\//.test(f.source) ||
      /\/lambdas\/(observability\/|config\/(logger|redact)\.ts)/.test(f.source),
  ],
  ['JSON', (f) => /\/lambdas\/schema\/canonical-json\.ts$/.test(f.source)],
  [
    'DynamoDB client and marshalling',
    (f) => /node_modules\/@aws-sdk\/util-dynamodb\//.test(f.source) || /\/lambdas\/store\//.test(f.source),
  ],
  ['crypto (hashes, signatures, ids)', (f) => /^node:(internal\/)?crypto/.test(f.source)],
  ['embedded DynamoDB layers (local/dynamodb-*.mjs)', (f) => /\/local\/dynamodb-[^/]*\.mjs$/.test(f.source)],
  [
    'LevelDB',
    (f) => /node_modules\/(classic-level|abstract-level|level[^/]*|memory-level|leveldown|lock)\//.test(f.source),
  ],
  ['dynalite (request handling)', (f) => /node_modules\/dynalite\//.test(f.source)],
  [
    'HTTP and sockets (node)',
    (f) =>
      /^node:(_http_|http|net|stream|internal\/(stream|streams|http|net|url|dns|buffer)|buffer|url)/.test(f.source) ||
      /\/lambdas\/providers\/http-transport\.ts$/.test(f.source),
  ],
  [
    'middleware and HTTP layer (middy, lambdas/http)',
    (f) => /node_modules\/@middy\//.test(f.source) || /\/lambdas\/http\//.test(f.source),
  ],
  ['local adapter (local/, not in Lambda)', (f) => /\/local\/[^/]+\.ts$/.test(f.source)],
  ['gateway logic (lambdas/)', (f) => /\/lambdas\//.test(f.source)],
  [
    'event loop (ticks, timers, events)',
    (f) =>
      /^node:(internal\/(process\/task_queues|timers|event_target|abort_controller)|timers|events)/.test(f.source) ||
      f.functionName === 'runMicrotasks',
  ],
  ['V8 and native, unattributed', (f) => f.functionName === '(program)' || f.source === ''],
];

export function categoryOf(frame: Frame): Category {
  for (const [category, matches] of RULES) if (matches(frame)) return category;
  return 'other';
}

/** Samples per category, largest first. */
export function byCategory(samples: ReadonlyMap<Frame, number>): [Category, number][] {
  const totals = new Map<Category, number>();
  for (const [frame, count] of samples) {
    const category = categoryOf(frame);
    totals.set(category, (totals.get(category) ?? 0) + count);
  }
  return [...totals].sort(([, a], [, b]) => b - a);
}
