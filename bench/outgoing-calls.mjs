// Preloaded into the local runtime by bench/scale.ts (NODE_OPTIONS=--import): counts the HTTP
// requests this process sends, per AWS operation (its x-amz-target header, such as
// `secretsmanager.GetSecretValue`) or else per host, and keeps the counts in
// `$BENCH_OUTGOING_CALLS_DIR/<pid>.json`. The Secrets Manager stand-in keeps no call log, and
// the benchmark must see how often the gateway reads secrets (and whether it calls STS) from
// what the code does. Does nothing without that variable.
import { subscribe } from 'node:diagnostics_channel';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.BENCH_OUTGOING_CALLS_DIR;
/** Counts are written this long after a call, so a burst of calls is one write. */
const WRITE_DELAY_MS = 10;

if (dir) {
  const file = join(dir, `${process.pid}.json`);
  const counts = {};
  let timer;
  const write = () => {
    timer = undefined;
    writeFileSync(`${file}.tmp`, JSON.stringify(counts));
    renameSync(`${file}.tmp`, file);
  };
  subscribe('http.client.request.start', ({ request }) => {
    const target = request.getHeader('x-amz-target');
    const name = target ? String(target) : `host ${request.host}`;
    counts[name] = (counts[name] ?? 0) + 1;
    timer ??= setTimeout(write, WRITE_DELAY_MS).unref();
  });
}
