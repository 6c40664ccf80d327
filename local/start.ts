/**
 * `npm start`: the whole gateway on this machine, with no AWS account and no provider keys.
 * Environment: PORT (default 8787), GATEWAY_DATA_DIR (default .local/), GATEWAY_ORIGINS
 * (extra comma-separated origins for CORS and dashboard cookies), POWERTOOLS_LOG_LEVEL,
 * POWERTOOLS_METRICS_DISABLED (default true: no EMF lines on the console),
 * GATEWAY_DYNAMODB_LATENCY_MS (each embedded DynamoDB call waits this long, as in AWS; default 0),
 * GATEWAY_JOB_WAIT_MS (each job poller wait and retry pause; default 1000),
 * GATEWAY_MODERATION (`local`, the default, or `openai`: local/moderation-engine.ts).
 */
import { parseLocalModeration } from './moderation-engine.js';
import { PortInUseError, startLocalRuntime, type LocalRuntime } from './runtime.js';

process.env['POWERTOOLS_LOG_LEVEL'] ??= 'WARN';
// EMF metric lines would flood the console; POWERTOOLS_METRICS_DISABLED=false shows them.
process.env['POWERTOOLS_METRICS_DISABLED'] ??= 'true';

/** A mistake in how the runtime was started: one line on stderr and exit 1, never a stack trace. */
function refuse(line: string): never {
  console.error(`local runtime: ${line}`);
  process.exit(1);
}

const DEFAULT_PORT = 8787;
const portText = process.env['PORT']?.trim() || String(DEFAULT_PORT);
const port = Number(portText);
if (!/^\d+$/.test(portText) || port > 65_535)
  refuse(`PORT must be a port number from 0 to 65535 (0: any free port), not "${portText}"`);
const dataDir = process.env['GATEWAY_DATA_DIR'] || '.local';
const extraOrigins = (process.env['GATEWAY_ORIGINS'] ?? '')
  .split(',')
  .map((o) => o.trim())
  .filter(Boolean);

const dynamoDbLatencyMs = Number(process.env['GATEWAY_DYNAMODB_LATENCY_MS'] || 0);

const jobWait = Number(process.env['GATEWAY_JOB_WAIT_MS'] || Number.NaN);
const jobWaitMs = Number.isFinite(jobWait) && jobWait >= 0 ? jobWait : undefined;

const moderation = parseLocalModeration(process.env['GATEWAY_MODERATION']);

const runtime: LocalRuntime = await startLocalRuntime({
  dataDir,
  port,
  extraOrigins,
  dynamoDbLatencyMs,
  jobWaitMs,
  moderation,
}).catch((error: unknown) => {
  if (!(error instanceof PortInUseError)) throw error;
  const another = port === DEFAULT_PORT ? DEFAULT_PORT + 1 : DEFAULT_PORT;
  return refuse(
    `port ${port} is already in use (another npm start?); choose another with PORT=${another} npm start, or PORT=0 for any free port`,
  );
});
const { info } = runtime;

console.log(
  [
    '',
    '  AI gateway is running (local runtime)',
    '',
    `  URL       ${info.baseUrl}`,
    `  Console   ${info.consoleUrl}  (keys, usage, requests, the arena)`,
    `  Sign-in   ${info.dashboard.email} / ${info.dashboard.password}`,
    `  API key   ${info.apiKey}`,
    `  Details   ${dataDir}/runtime.json (admin token, simulators)`,
    '',
    '  Try it (the README’s SDK example reads GATEWAY_API_KEY too):',
    `  export GATEWAY_API_KEY=${info.apiKey}`,
    `  curl -H "Authorization: Bearer $GATEWAY_API_KEY" ${info.baseUrl}/api/v1/models`,
    '',
  ].join('\n'),
);

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n  ${signal}: stopping`);
  runtime.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
// Ctrl-C reaches npm and this process together (and npm forwards it once more): the first
// signal starts the ordered stop, later ones change nothing.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => shutdown(signal));
