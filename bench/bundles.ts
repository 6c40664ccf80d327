import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { routes, type RouteSpec } from '../lib/routes.js';
import { LAMBDA_BUNDLING } from '../lib/bundling.js';
import { fmtBytes, fmtMs, median, table } from './stats.js';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'bench', '.out');
const INIT_RUNS = 5;

/**
 * Bundles every function as the stack does (lib/bundling.ts) and measures its size and its
 * module init time: a fresh Node process importing the bundle, as a Lambda cold start does
 * (the AWS SDK is external there too, provided by the runtime; here it resolves from
 * node_modules).
 */
export async function benchBundles(): Promise<void> {
  rmSync(OUT, { recursive: true, force: true });
  const rows: (string | number)[][] = [['function', 'bundle', 'init p50', 'init min']];
  for (const route of routes) {
    const outfile = await bundleRoute(route);
    const inits = Array.from({ length: INIT_RUNS }, () => initMs(outfile));
    rows.push([route.id, fmtBytes(statSync(outfile).size), fmtMs(median(inits)), fmtMs(Math.min(...inits))]);
  }
  console.log(`\nFunction bundles (esbuild, minified ESM; module init = fresh process import, ${INIT_RUNS} runs)\n`);
  console.log(table(rows));
}

/** Bundles one route's function as the stack does (lib/bundling.ts); returns the bundle's path. */
export async function bundleRoute(route: RouteSpec): Promise<string> {
  const outfile = join(OUT, route.id, 'index.mjs');
  mkdirSync(join(OUT, route.id), { recursive: true });
  await build({
    entryPoints: [join(ROOT, route.entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_BUNDLING.target,
    minify: LAMBDA_BUNDLING.minify,
    sourcemap: LAMBDA_BUNDLING.sourceMap,
    mainFields: [...LAMBDA_BUNDLING.mainFields],
    external: [...LAMBDA_BUNDLING.externalModules],
    banner: { js: LAMBDA_BUNDLING.banner },
    logLevel: 'error',
  });
  return outfile;
}

/**
 * Lambda's Node.js runtime provides the `awslambda` global that response-streaming handlers
 * call at module init (`streamifyResponse`); a bare `node` has none, so the stand-in below is
 * installed before the clock starts, as the runtime installs it before loading the handler.
 */
export const LAMBDA_GLOBALS = 'globalThis.awslambda??={streamifyResponse:(h)=>h,HttpResponseStream:{from:(s)=>s}};';

function initMs(bundle: string): number {
  const script = `${LAMBDA_GLOBALS}const t=performance.now();await import(${JSON.stringify(bundle)});process.stdout.write(String(performance.now()-t))`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, AWS_REGION: 'us-east-1', POWERTOOLS_LOG_LEVEL: 'WARN' },
  });
  return Number(output.toString());
}
