import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { costReport, DEFAULT_ASSUMPTIONS, DEFAULT_REPORT_ASSUMPTIONS, type Template } from '../lib/cost/cost-model.js';

/**
 * `npm run cost [-- --template cdk.out/X.template.json] [--duration-ms 2000] [--requests-per-month 1000000]`:
 * prints the idle cost per month and the infrastructure cost per million gateway requests of
 * the stack, the streaming routes' two compute modes side by side per million 20 s streams (with
 * the Managed Instances mode's idle cost and the crossover volume), then CloudWatch custom metrics at full activity, media job polling per thousand
 * jobs, and the finance exports per month. With no template it synthesizes one first
 * (`cdk synth`, offline, with this checkout's context).
 *
 * --duration-ms         billed time of the representative chat completion (default 2000)
 * --requests-per-month  the traffic the finance exports table is priced at (default 1000000)
 */
const { values } = parseArgs({
  options: {
    template: { type: 'string' },
    'duration-ms': { type: 'string' },
    'requests-per-month': { type: 'string' },
  },
  strict: true,
});

const durationMs = values['duration-ms'] === undefined ? DEFAULT_ASSUMPTIONS.durationMs : Number(values['duration-ms']);
if (!Number.isFinite(durationMs) || durationMs <= 0 || durationMs > 900_000) {
  console.error("--duration-ms: a number of milliseconds, above 0 and at most 900000 (Lambda's limit)");
  process.exit(2);
}

const { exports } = DEFAULT_REPORT_ASSUMPTIONS;
const requestsPerMonth =
  values['requests-per-month'] === undefined ? exports.requestsPerMonth : Number(values['requests-per-month']);
if (!Number.isFinite(requestsPerMonth) || requestsPerMonth < 0) {
  console.error('--requests-per-month: a number of gateway requests a month, 0 or more');
  process.exit(2);
}

const template = JSON.parse(readFileSync(values.template ?? synthesizedTemplate(), 'utf8')) as Template;
console.log(
  costReport(
    template,
    { ...DEFAULT_ASSUMPTIONS, durationMs },
    { ...DEFAULT_REPORT_ASSUMPTIONS, exports: { ...exports, requestsPerMonth } },
  ),
);

function synthesizedTemplate(): string {
  const outdir = mkdtempSync(join(tmpdir(), 'gateway-cost-'));
  process.on('exit', () => rmSync(outdir, { recursive: true, force: true }));
  try {
    // Bundling reports every function on stderr: shown only if the synth fails.
    execFileSync('npx', ['cdk', 'synth', '--quiet', '--output', outdir], {
      stdio: 'pipe',
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    process.stderr.write(String((error as { stderr?: Buffer }).stderr ?? error));
    throw new Error('cdk synth failed', { cause: error });
  }
  const templates = readdirSync(outdir).filter((name) => name.endsWith('.template.json'));
  if (templates.length !== 1) throw new Error(`expected one stack template in ${outdir}, found ${templates.length}`);
  return join(outdir, templates[0]!);
}
