import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { LocalGateway } from '../local/child-runtime.js';
import { startFloorProxy, type FloorProxy } from './floor-proxy.js';
import { benchKeys, ORDER, paths, type PathName, type Paths } from './gateway-overhead.js';
import { exchange, keepAliveAgent, run, type Probe } from './load.js';
import { childPids } from './proc.js';
import { fmtMs, percent, percentile, table } from './stats.js';
import { printVerdicts, verdict } from './verdicts.js';

/**
 * The gateway as a deployment sees it, in two set-ups the loopback figures hide:
 *
 * 1. DynamoDB at AWS speed. In Lambda each DynamoDB call costs milliseconds, not the tens of
 *    microseconds of loopback. The runtime's embedded DynamoDB holds every call for
 *    `BENCH_DYNAMODB_LATENCY_MS` (default 3; local/dynamodb-latency.mjs) and logs when each
 *    arrived. Requests go one at a time on a warm runtime, with a pause after each long
 *    enough for its after-response writes to land, so a call that arrives while a request is
 *    in flight is one that request waited for (synchronous).
 * 2. One vCPU for the servers. The load generator (this process) runs on core 0 and every
 *    server (simulator and stand-ins, bare proxy, gateway, embedded DynamoDB) on core 1
 *    (`taskset`), as on a single-vCPU deployment; throughput at concurrency 50 is compared
 *    with the bare proxy's, and the first streamed byte with the direct upstream's.
 */
const LATENCY_MS = Number(process.env['BENCH_DYNAMODB_LATENCY_MS'] ?? 3);
const WARMUP = 200;
const SAMPLES = 200;
/**
 * After each request, time for its after-response writes to land: the ledger batch waits for
 * the local write-behind window (20 ms), the day totals for another after it, each call held
 * for the latency; with room to spare.
 */
const PAUSE_MS = 100 + 4 * LATENCY_MS;

const PINNED_CONCURRENCY = 50;
const PINNED_WARMUP = 500;
const PINNED_REQUESTS = 3000;
const PINNED_STREAMS = 1000;

const TARGETS = {
  streamSyncCalls: 0,
  missSyncCalls: 1,
  addedTtfbMs: 1,
  pinnedShareOfFloor: 0.3,
};

interface DynamoCall {
  readonly operation: string;
  readonly at: number;
}

interface Timed {
  readonly sentAt: number;
  readonly firstByteAt: number;
  readonly endAt: number;
}

export async function benchDeploymentShaped(parts: readonly string[]): Promise<void> {
  if (parts.includes('latency')) await benchDynamoDbLatency();
  if (parts.includes('pinned')) await benchPinned();
}

async function benchDynamoDbLatency(): Promise<void> {
  await withServers({ GATEWAY_DYNAMODB_LATENCY_MS: String(LATENCY_MS) }, async ({ gateway, plain, stream }) => {
    for (const set of [plain, stream]) for (const name of ORDER) await run(set[name], WARMUP, 1, 0);

    const direct = { plain: await paced(plain.direct), stream: await paced(stream.direct) };
    const viaFloor = { plain: await paced(plain.floor), stream: await paced(stream.floor) };
    await dynamoCalls(gateway); // calls so far (warm-up) are not measured
    const miss = await paced(plain.gateway);
    const missCalls = await dynamoCalls(gateway);
    const streamed = await paced(stream.gateway);
    const streamCalls = await dynamoCalls(gateway);

    const missSync = syncCalls(miss, missCalls, 'endAt');
    const streamSync = syncCalls(streamed, streamCalls, 'firstByteAt');
    const streamSyncAll = syncCalls(streamed, streamCalls, 'endAt');
    const totals = (timed: Timed[]) => timed.map((t) => t.endAt - t.sentAt);
    const ttfbs = (timed: Timed[]) => timed.map((t) => t.firstByteAt - t.sentAt);
    const added = (gatewaySamples: number[], directSamples: number[], q: number) =>
      percentile(gatewaySamples, q) - percentile(directSamples, q);
    const row = (label: string, gatewaySamples: number[], directSamples: number[], sync: SyncCalls) => [
      label,
      fmtMs(added(gatewaySamples, directSamples, 50)),
      fmtMs(added(gatewaySamples, directSamples, 99)),
      `${sync.mean.toFixed(2)}, ${sync.max}`,
      sync.spread,
      sync.operations,
    ];

    console.log(
      `\nDynamoDB at AWS speed: every embedded DynamoDB call held ${LATENCY_MS} ms; warm runtime; ` +
        `${SAMPLES} requests one at a time, ${PAUSE_MS} ms apart (after-response writes land in between)\n`,
    );
    console.log(
      table([
        ['request', 'added p50', 'added p99', 'DynamoDB calls waited for: mean, max', 'calls×requests', 'which'],
        [
          'bare proxy, for comparison: non-streamed / TTFB',
          `${fmtMs(added(totals(viaFloor.plain), totals(direct.plain), 50))} / ${fmtMs(added(ttfbs(viaFloor.stream), ttfbs(direct.stream), 50))}`,
          `${fmtMs(added(totals(viaFloor.plain), totals(direct.plain), 99))} / ${fmtMs(added(ttfbs(viaFloor.stream), ttfbs(direct.stream), 99))}`,
          '-',
          '-',
          '-',
        ],
        row('non-streamed, cache MISS (total time)', totals(miss), totals(direct.plain), missSync),
        row('streamed (time to first byte)', ttfbs(streamed), ttfbs(direct.stream), streamSync),
        row('streamed (whole stream)', totals(streamed), totals(direct.stream), streamSyncAll),
      ]),
    );
    // The target: the first byte, beyond what the bare proxy adds.
    const beyondFloor = added(ttfbs(streamed), ttfbs(viaFloor.stream), 50);
    printVerdicts([
      verdict('sync DynamoDB calls, streamed request (max)', streamSync.max, TARGETS.streamSyncCalls, String),
      verdict(`added TTFB p50 beyond the floor, ${LATENCY_MS} ms calls`, beyondFloor, TARGETS.addedTtfbMs, fmtMs),
      verdict('sync DynamoDB calls, non-streamed cache MISS (max)', missSync.max, TARGETS.missSyncCalls, String),
    ]);
  });
}

interface Servers {
  readonly gateway: LocalGateway;
  readonly floor: FloorProxy;
  /** Direct, floor and gateway probes, non-streamed and streamed, with one key. */
  readonly plain: Paths;
  readonly stream: Paths;
}

/** `npm start` (with `env`) and a bare proxy in front of its OpenAI simulator, for one section. */
async function withServers(env: Record<string, string>, section: (servers: Servers) => Promise<void>): Promise<void> {
  const gateway = await LocalGateway.start({ POWERTOOLS_LOG_LEVEL: 'INFO', ...env });
  let floor: FloorProxy | undefined;
  try {
    const simulator = gateway.info.simulators['openai']!;
    floor = await startFloorProxy(simulator);
    const keys = await benchKeys(gateway, 1);
    const runId = randomBytes(4).toString('hex');
    await section({
      gateway,
      floor,
      plain: paths(gateway, floor, simulator, keys, runId, false),
      stream: paths(gateway, floor, simulator, keys, runId, true),
    });
  } finally {
    await floor?.stop();
    gateway.output = '';
    await gateway.dispose();
  }
}

/** One request at a time, each followed by a pause; absolute times on the shared clock. */
async function paced(probe: Probe): Promise<Timed[]> {
  const agent = keepAliveAgent(1);
  const timed: Timed[] = [];
  try {
    for (let i = 0; i < SAMPLES; i++) {
      const sentAt = performance.timeOrigin + performance.now();
      const outcome = await exchange(agent, probe, WARMUP + i);
      if (outcome.status !== 200) throw new Error(`${probe.name}: status ${outcome.status} ${outcome.errorBody ?? ''}`);
      const problem = probe.check?.(outcome);
      if (problem) throw new Error(`${probe.name}: ${problem}`);
      timed.push({ sentAt, firstByteAt: sentAt + outcome.firstByteMs, endAt: sentAt + outcome.totalMs });
      await new Promise((done) => setTimeout(done, PAUSE_MS));
    }
  } finally {
    agent.destroy();
  }
  return timed;
}

async function dynamoCalls(gateway: LocalGateway): Promise<DynamoCall[]> {
  const response = await fetch(`${gateway.aws.dynamodb}/__local/calls`);
  return ((await response.json()) as { calls: DynamoCall[] }).calls;
}

/**
 * Calls a request waited for: arrived after it was sent, and early enough to have been answered
 * before the given moment of its answer (a call held LATENCY_MS that arrives later cannot have
 * been waited for: it is work started as the response left, such as a cache refresh).
 */
interface SyncCalls {
  readonly mean: number;
  readonly max: number;
  /** How many requests made 0, 1, 2, ... calls: `calls×requests`. */
  readonly spread: string;
  readonly operations: string;
}

function syncCalls(timed: readonly Timed[], calls: readonly DynamoCall[], until: 'firstByteAt' | 'endAt'): SyncCalls {
  const counts = timed.map(() => 0);
  const operations = new Map<string, number>();
  for (const call of calls) {
    const index = timed.findIndex((t) => call.at >= t.sentAt && call.at <= t[until] - LATENCY_MS);
    if (index < 0) continue;
    counts[index]!++;
    operations.set(call.operation, (operations.get(call.operation) ?? 0) + 1);
  }
  const histogram = new Map<number, number>();
  for (const count of counts) histogram.set(count, (histogram.get(count) ?? 0) + 1);
  return {
    mean: counts.reduce((a, b) => a + b, 0) / counts.length,
    max: Math.max(...counts),
    spread: [...histogram]
      .sort(([a], [b]) => a - b)
      .map(([calls, requests]) => `${calls}×${requests}`)
      .join(' '),
    operations: [...operations].map(([op, n]) => `${op} ×${n}`).join(', ') || 'none',
  };
}

async function benchPinned(): Promise<void> {
  await withServers({}, async ({ gateway, floor, plain, stream }) => {
    const servers = [...processTree(gateway.pid!), floor.pid];
    pin(process.pid, '0');
    for (const pid of servers) pin(pid, '1');
    try {
      const rps = {} as Record<PathName, number>;
      const ttfb = {} as Record<PathName, number[]>;
      for (const name of ORDER) rps[name] = await throughput(plain, name);
      for (const name of ORDER) {
        await run(stream[name], WARMUP, 1, 0);
        ttfb[name] = (await run(stream[name], PINNED_STREAMS, 1, WARMUP)).outcomes.map((o) => o.firstByteMs);
      }
      const share = rps.gateway / rps.floor;
      const addedTtfb = percentile(ttfb.gateway, 50) - percentile(ttfb.direct, 50);
      console.log(
        `\nOne vCPU for the servers: load generator on core 0; simulator, stand-ins, bare proxy, gateway and ` +
          `embedded DynamoDB on core 1 (taskset; pids ${servers.join(', ')})\n`,
      );
      console.log(
        table([
          ['path', `req/s, c=${PINNED_CONCURRENCY}`, 'TTFB p50, stream', 'TTFB p99, stream'],
          ...ORDER.map((name) => [
            name,
            rps[name].toFixed(0),
            fmtMs(percentile(ttfb[name], 50)),
            fmtMs(percentile(ttfb[name], 99)),
          ]),
        ]),
      );
      console.log(
        `\ngateway req/s = ${(share * 100).toFixed(1)}% of the bare proxy's; the bare proxy adds ` +
          `${fmtMs(percentile(ttfb.floor, 50) - percentile(ttfb.direct, 50))} to the first byte, the gateway ${fmtMs(addedTtfb)}`,
      );
      printVerdicts([
        verdict(
          'gateway req/s as a share of the bare proxy, pinned',
          share,
          TARGETS.pinnedShareOfFloor,
          percent,
          'min',
        ),
        verdict('added TTFB p50, pinned', addedTtfb, TARGETS.addedTtfbMs, fmtMs),
      ]);
    } finally {
      pin(process.pid, '0,1');
    }
  });
}

async function throughput(set: Paths, name: PathName): Promise<number> {
  await run(set[name], PINNED_WARMUP, PINNED_CONCURRENCY, 0);
  const { wallMs } = await run(set[name], PINNED_REQUESTS, PINNED_CONCURRENCY, PINNED_WARMUP);
  return (PINNED_REQUESTS * 1000) / wallMs;
}

/** A process and all its descendants. */
function processTree(pid: number): number[] {
  return [pid, ...childPids(pid).flatMap(processTree)];
}

/** Every thread of the process onto the given cores. */
function pin(pid: number, cores: string): void {
  execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cores, String(pid)], { stdio: 'ignore' });
}
