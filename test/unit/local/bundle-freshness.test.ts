import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleIsCurrent, recordBundleInputs } from '../../../local/bundle-freshness.mjs';

/** The local runtime's bundle is rebuilt whenever a source changed, and only then. */
let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'bundle-freshness-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function built(): { bundle: string; source: string } {
  const bundle = join(dir, 'runtime.mjs');
  const source = join(dir, 'handler.ts');
  writeFileSync(bundle, 'export {};');
  writeFileSync(source, 'export const a = 1;');
  recordBundleInputs(bundle, [source]);
  return { bundle, source };
}

test('current while its sources are as they were', () => {
  const { bundle } = built();
  expect(bundleIsCurrent(bundle)).toBe(true);
});

test('stale when a source changed, by size or by time alone, or is gone', () => {
  const edited = built();
  writeFileSync(edited.source, 'export const a = 12;');
  expect(bundleIsCurrent(edited.bundle)).toBe(false);

  const touched = built();
  utimesSync(touched.source, new Date(), new Date(Date.now() + 5_000));
  expect(bundleIsCurrent(touched.bundle)).toBe(false);

  const removed = built();
  rmSync(removed.source);
  expect(bundleIsCurrent(removed.bundle)).toBe(false);
});

test('stale without the bundle or without its list of sources', () => {
  const noBundle = built();
  rmSync(noBundle.bundle);
  expect(bundleIsCurrent(noBundle.bundle)).toBe(false);
  const noList = built();
  rmSync(`${noList.bundle}.inputs.json`);
  expect(bundleIsCurrent(noList.bundle)).toBe(false);
});

test("the runtime's build bundles the runtime and its services child, and lists every source it read, and itself", () => {
  const bundle = join(dir, 'start.bundle.mjs');
  const build = spawnSync(process.execPath, [resolve('local/build-runtime.mjs'), bundle], { encoding: 'utf8' });
  expect(build.stderr).toBe('');
  expect(build.status).toBe(0);
  const listed = (JSON.parse(readFileSync(`${bundle}.inputs.json`, 'utf8')) as { inputs: [string][] }).inputs.map(
    ([path]) => path,
  );
  for (const source of [
    'local/start.ts',
    'local/runtime.ts',
    'local/services-child.ts',
    'local/simulators/prompt-service.ts',
    'lambdas/config/configuration.ts',
    'lambdas/handlers/chat-completions.ts',
    'local/build-runtime.mjs',
  ])
    expect(listed).toContain(resolve(source));
  expect(bundleIsCurrent(bundle)).toBe(true);
  expect(statSync(`${bundle}.services.mjs`).size).toBeGreaterThan(0);
});
