// The order jest hands test files to its workers. Jest's own: files that failed last time first,
// then files it has no timing for, largest first, then the rest, slowest first. A group file
// (test/infra/template-*.test.ts) is a few import lines yet runs every case file it imports, the
// longest files of the suite: by their own size a fresh clone started them last, and the run
// ended waiting on them alone. Here a file weighs what it imports of `./*.cases.js` too.
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Sequencer from '@jest/test-sequencer';

const CASES = /^import '(\.\/[^']+\.cases)\.js';$/gm;

function weight(path) {
  let bytes = statSync(path).size;
  for (const [, cases] of readFileSync(path, 'utf8').matchAll(CASES))
    bytes += statSync(resolve(dirname(path), `${cases}.ts`)).size;
  return bytes;
}

export default class TestOrder extends Sequencer {
  sort(tests) {
    const weights = new Map();
    const weightOf = (test) => {
      if (!weights.has(test.path)) weights.set(test.path, weight(test.path));
      return weights.get(test.path);
    };
    for (const test of tests) test.duration = this.time(test);
    return tests.sort((a, b) => {
      const failedA = this.hasFailed(a);
      if (failedA !== this.hasFailed(b)) return failedA ? -1 : 1;
      const timedA = a.duration != null;
      if (timedA !== (b.duration != null)) return timedA ? 1 : -1;
      if (timedA) return b.duration - a.duration;
      return weightOf(b) - weightOf(a);
    });
  }
}
