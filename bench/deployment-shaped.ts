import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { LocalGateway } from '../local/child-runtime.js';
import { monotonicUs, sourceResolver, type Window } from './cpu-profile.js';
import { startFloorProxy, type FloorProxy } from './floor-proxy.js';
import { benchKeys, ORDER, paths, type PathName, type Paths } from './gateway-overhead.js';
import { exchange, keepAliveAgent, run, type Probe } from './load.js';
import { isAggregatorCall, keyPattern } from './scale-model.js';
import { childPids, commandLine, cpuMs } from './proc.js';
import { printProfileBreakdown, type ProfiledPhase } from './profile-report.js';
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
 *    with the bare proxy's, latency at concurrency 1 and the first streamed byte with the
 *    direct upstream's, and the CPU the gateway and its database spend per request is read from
 *    /proc. With `profile`, every server runs under `--cpu-prof`, and the profiles of the
 *    gateway and the database, cut to each measured phase, say where that CPU goes.
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
/** Non-streamed requests at concurrency 1 per path (in two halves), after the warm-up. */
const PINNED_C1_WARMUP = 200;
const PINNED_C1_SAMPLES = 1000;
/** `--cpu-prof-interval` for `pinned profile`: fine enough for a few thousand samples per phase. */
const PROFILE_INTERVAL_US = 250;

const TARGETS = {
  streamSyncCalls: 0,
  missSyncCalls: 1,
  addedTtfbMs: 1,
  pinnedShareOfFloor: 0.3,
  addedP50Ms: 0.5,
  cpuUsPerRequest: 500,
};

interface DynamoCall {
  readonly operation: string;
  readonly at: number;
  /** What the call touched (the latency section asks for the detailed log). */
  readonly items?: readonly { readonly table: string; readonly pk: string }[];
}

interface Timed {
  readonly sentAt: number;
  readonly firstByteAt: number;
  readonly endAt: number;
}

/** `profile`: the pinned section runs its servers under `--cpu-prof` and prints where the CPU goes. */
export async function benchDeploymentShaped(
  parts: readonly string[],
  options: { profile?: boolean } = {},
): Promise<void> {
  if (parts.includes('latency')) await benchDynamoDbLatency();
  if (parts.includes('pinned')) await benchPinned(options.profile ?? false);
}

async function benchDynamoDbLatency(): Promise<void> {
  await withServers({ GATEWAY_DYNAMODB_LATENCY_MS: String(LATENCY_MS) }, async ({ gateway, plain, stream }) => {
    for (const set of [plain, stream]) for (const name of ORDER) await run(set[name], WARMUP, 1, 0);

    const direct = { plain: await paced(plain.direct), stream: await paced(stream.direct) };
    const viaFloor = { plain: await paced(plain.floor), stream: await paced(stream.floor) };
    // Warm again: measuring the other paths took longer than a rate window and the key cache's
    // lifetime, and a key's first request after a quiet minute is not a warm request.
    // (Numbered after the measured requests, so none of them is answered from the cache.)
    for (const set of [plain, stream]) await run(set.gateway, 20, 1, WARMUP + SAMPLES);
    const detailed = await fetch(`${gateway.aws.dynamodb}/__local/calls/detailed`, { method: 'POST' });
    if (detailed.status !== 204) throw new Error(`the embedded DynamoDB has no detailed call log (${detailed.status})`);
    await settled(gateway); // calls so far (warm-up) are not measured
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
        `${SAMPLES} requests one at a time, ${PAUSE_MS} ms apart (after-response writes land in between); ` +
        `a call counts for a request when it arrived while the request waited, except the usage ` +
        `aggregator's (its own function in AWS)\n`,
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

/**
 * Waits until the warm-up's after-response writes have all landed (no call for a whole pause),
 * and drops them from the log: the warm-up runs without pauses, so its last ledger batches are
 * still being written when it ends, and the first measured request would be charged for them.
 */
async function settled(gateway: LocalGateway): Promise<void> {
  await dynamoCalls(gateway);
  for (;;) {
    await new Promise((done) => setTimeout(done, PAUSE_MS));
    if ((await dynamoCalls(gateway)).every(isAggregatorCall)) return;
  }
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
    if (isAggregatorCall(call)) continue;
    const index = timed.findIndex((t) => call.at >= t.sentAt && call.at <= t[until] - LATENCY_MS);
    if (index < 0) continue;
    counts[index]!++;
    const on = [...new Set((call.items ?? []).map((item) => keyPattern(item.pk)))].join(' ');
    const name = on ? `${call.operation} ${on}` : call.operation;
    operations.set(name, (operations.get(name) ?? 0) + 1);
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

interface PinnedLoad {
  readonly rps: number;
  readonly wallMs: number;
  /** CPU of the runtime process (the gateway alone) and of the embedded DynamoDB over the run. */
  readonly gatewayCpuMs: number;
  readonly dbCpuMs: number;
  readonly floorCpuMs: number;
  readonly window: Window;
}

/** The processes whose CPU the pinned section charges to the gateway. */
interface Charged {
  readonly gateway: number;
  readonly db: number;
  /** The bare proxy, measured alongside for comparison. */
  readonly floor: number;
}

async function benchPinned(profile: boolean): Promise<void> {
  const profileDir = profile ? mkdtempSync(join(tmpdir(), 'gateway-profiles-')) : undefined;
  const bundleTag = `profile-${randomBytes(4).toString('hex')}`;
  const bundle = join(import.meta.dirname, '..', 'local', `.start.bundle.mjs-${bundleTag}.mjs`);
  const env: Record<string, string> = profileDir
    ? {
        NODE_OPTIONS:
          `${process.env['NODE_OPTIONS'] ?? ''} --cpu-prof --cpu-prof-dir=${profileDir} --cpu-prof-interval=${PROFILE_INTERVAL_US}`.trim(),
        // A bundle of its own (local/launch.mjs): runtimes started meanwhile rebuild the shared one.
        GATEWAY_BUNDLE_TAG: bundleTag,
      }
    : {};
  let profiled: { phases: ProfiledPhase[] } | undefined;
  try {
    await withServers(env, async ({ gateway, floor, plain, stream }) => {
      const pids = chargedProcesses(gateway, floor);
      const servers = [...processTree(gateway.pid!), floor.pid];
      pin(process.pid, '0');
      for (const pid of servers) pin(pid, '1');
      try {
        const load = {} as Record<PathName, PinnedLoad>;
        for (const name of ORDER) load[name] = await throughput(plain, name, pids);

        // Latency at concurrency 1, in two halves (one path order, then the reverse) to cancel drift.
        const latency: Record<PathName, number[]> = { direct: [], floor: [], gateway: [] };
        const half = PINNED_C1_SAMPLES / 2;
        const c1Base = PINNED_WARMUP + PINNED_REQUESTS;
        for (const name of ORDER) await run(plain[name], PINNED_C1_WARMUP, 1, c1Base);
        for (const [round, order] of [ORDER, [...ORDER].reverse()].entries()) {
          for (const name of order) {
            const first = c1Base + PINNED_C1_WARMUP + round * half;
            latency[name].push(...(await run(plain[name], half, 1, first)).outcomes.map((o) => o.totalMs));
          }
        }

        const ttfb = {} as Record<PathName, number[]>;
        const streamLoad = {} as Record<PathName, PinnedLoad>;
        for (const name of ORDER) {
          await run(stream[name], WARMUP, 1, 0);
          const measured = await measuredRun(pids, () => run(stream[name], PINNED_STREAMS, 1, WARMUP));
          ttfb[name] = measured.outcomes.map((o) => o.firstByteMs);
          streamLoad[name] = measured.load(PINNED_STREAMS);
        }
        const streamed = streamLoad.gateway;

        const cpu = chargedCpu(load, 'gateway', PINNED_REQUESTS);
        const streamCpu = chargedCpu(streamLoad, 'gateway', PINNED_STREAMS);
        const share = load.gateway.rps / load.floor.rps;
        const addedP50 = percentile(latency.gateway, 50) - percentile(latency.direct, 50);
        const addedTtfb = percentile(ttfb.gateway, 50) - percentile(ttfb.direct, 50);
        console.log(
          `\nOne vCPU for the servers: load generator on core 0; simulator, stand-ins, bare proxy, gateway and ` +
            `embedded DynamoDB on core 1 (taskset; pids ${servers.join(', ')})` +
            (profileDir
              ? `\nPROFILED RUN: every server process runs under --cpu-prof, whose sampling costs CPU too`
              : '') +
            '\n',
        );
        console.log(
          table([
            ['path', `req/s, c=${PINNED_CONCURRENCY}`, 'p50, c=1', 'p99, c=1', 'TTFB p50, stream', 'TTFB p99, stream'],
            ...ORDER.map((name) => [
              name,
              load[name].rps.toFixed(0),
              fmtMs(percentile(latency[name], 50)),
              fmtMs(percentile(latency[name], 99)),
              fmtMs(percentile(ttfb[name], 50)),
              fmtMs(percentile(ttfb[name], 99)),
            ]),
          ]),
        );
        console.log(
          `\ngateway req/s = ${(share * 100).toFixed(1)}% of the bare proxy's; at c=1 the bare proxy adds ` +
            `${fmtMs(percentile(latency.floor, 50) - percentile(latency.direct, 50))} p50, the gateway ${fmtMs(addedP50)}; ` +
            `to the first streamed byte the bare proxy adds ` +
            `${fmtMs(percentile(ttfb.floor, 50) - percentile(ttfb.direct, 50))}, the gateway ${fmtMs(addedTtfb)}`,
        );
        console.log(
          `\nCPU per request (utime+stime from /proc, every thread; minus each process's background rate during the direct run)\n`,
        );
        console.log(
          table([
            ['request', 'gateway process', 'embedded DynamoDB', 'gateway + database'],
            ...[
              [`non-streamed, c=${PINNED_CONCURRENCY}`, cpu],
              ['streamed, c=1', streamCpu],
            ].map(([label, c]) => {
              const figures = c as ChargedCpu;
              return [label as string, us(figures.gatewayUs), us(figures.dbUs), us(figures.gatewayUs + figures.dbUs)];
            }),
          ]),
        );
        const floorUs = (load.floor.floorCpuMs * 1000) / PINNED_REQUESTS;
        const floorStreamUs = (streamLoad.floor.floorCpuMs * 1000) / PINNED_STREAMS;
        // A ratio to what the bare proxy spent in the same run holds still when the machine's
        // speed does not (a shared host's CPU time per request moved by half between runs).
        console.log(
          `\nFor comparison, the bare proxy: ${us(floorUs)} CPU per request at c=${PINNED_CONCURRENCY}, ` +
            `${us(floorStreamUs)} per stream; the gateway and its database spend ` +
            `${((cpu.gatewayUs + cpu.dbUs) / floorUs).toFixed(1)}× and ` +
            `${((streamCpu.gatewayUs + streamCpu.dbUs) / floorStreamUs).toFixed(1)}× as much`,
        );
        printVerdicts([
          verdict(
            'gateway + database CPU per non-streamed request, pinned',
            cpu.gatewayUs + cpu.dbUs,
            TARGETS.cpuUsPerRequest,
            us,
          ),
          verdict(
            'gateway req/s as a share of the bare proxy, pinned',
            share,
            TARGETS.pinnedShareOfFloor,
            percent,
            'min',
          ),
          verdict('added p50, c=1, pinned', addedP50, TARGETS.addedP50Ms, fmtMs),
          verdict('added TTFB p50, pinned', addedTtfb, TARGETS.addedTtfbMs, fmtMs),
        ]);
        if (profileDir)
          profiled = {
            phases: [
              {
                label: `non-streamed, c=${PINNED_CONCURRENCY}`,
                window: load.gateway.window,
                processes: [
                  { label: 'gateway process', pid: pids.gateway, cpuUsPerRequest: cpu.gatewayUs },
                  { label: 'embedded DynamoDB', pid: pids.db, cpuUsPerRequest: cpu.dbUs },
                ],
              },
              {
                label: 'streamed, c=1',
                window: streamed.window,
                processes: [
                  { label: 'gateway process', pid: pids.gateway, cpuUsPerRequest: streamCpu.gatewayUs },
                  { label: 'embedded DynamoDB', pid: pids.db, cpuUsPerRequest: streamCpu.dbUs },
                ],
              },
            ],
          };
      } finally {
        pin(process.pid, '0,1');
      }
    });
  } finally {
    // Beside the profiles, so they can be read again later; local/ keeps only the shared bundle,
    // so the tagged bundle's other outputs (local/build-runtime.mjs: its inputs list, the
    // services child and its map) go too.
    if (profileDir) {
      for (const file of [bundle, `${bundle}.map`]) {
        if (existsSync(file)) copyFileSync(file, join(profileDir, keptName(file)));
        rmSync(file, { force: true });
      }
      for (const suffix of ['.inputs.json', '.services.mjs', '.services.mjs.map'])
        rmSync(`${bundle}${suffix}`, { force: true });
    }
  }
  // The runtime's processes write their profiles as they exit, when withServers has stopped them.
  if (profileDir && profiled) {
    const resolve = sourceResolver([{ bundle, map: join(profileDir, keptName(`${bundle}.map`)) }]);
    console.log(
      `\nWhere the CPU goes (V8 CPU profiles, one sample per ${PROFILE_INTERVAL_US} µs of a thread's running time; ` +
        `each category's share of the busy samples applied to the measured CPU above; main thread only, ` +
        `so a share of work on other threads shows under the category that started it)`,
    );
    printProfileBreakdown(profileDir, profiled.phases, resolve);
    writeFileSync(join(profileDir, 'phases.json'), `${JSON.stringify(profiled.phases, null, 2)}\n`);
    console.log(
      `\nProfiles (open in Chrome DevTools or VS Code): ${profileDir}; phases.json there gives each phase's ` +
        `window on the profiles' clock (microseconds) and the pids`,
    );
  }
}

/** A bundle file's name beside the profiles: not hidden there. */
const keptName = (file: string) => basename(file).replace(/^\./, '');

function chargedProcesses(gateway: LocalGateway, floor: FloorProxy): Charged {
  const db = childPids(gateway.pid!).find((pid) => commandLine(pid).includes('dynamodb-child'));
  if (db === undefined) throw new Error('the runtime has no embedded DynamoDB process (local/dynamodb-child.mjs)');
  return { gateway: gateway.pid!, db, floor: floor.pid };
}

/** Runs `work`, reading the processes' CPU and the monotonic clock around it. */
async function measuredRun<T extends { wallMs: number }>(
  pids: Charged,
  work: () => Promise<T>,
): Promise<T & { load(requests: number): PinnedLoad }> {
  const before = { gateway: cpuMs(pids.gateway), db: cpuMs(pids.db), floor: cpuMs(pids.floor) };
  const startUs = monotonicUs();
  const result = await work();
  const window = { startUs, endUs: monotonicUs() };
  const gatewayCpuMs = cpuMs(pids.gateway) - before.gateway;
  const dbCpuMs = cpuMs(pids.db) - before.db;
  const floorCpuMs = cpuMs(pids.floor) - before.floor;
  return {
    ...result,
    load: (requests) => ({
      rps: (requests * 1000) / result.wallMs,
      wallMs: result.wallMs,
      gatewayCpuMs,
      dbCpuMs,
      floorCpuMs,
      window,
    }),
  };
}

async function throughput(set: Paths, name: PathName, pids: Charged): Promise<PinnedLoad> {
  await run(set[name], PINNED_WARMUP, PINNED_CONCURRENCY, 0);
  const measured = await measuredRun(pids, () => run(set[name], PINNED_REQUESTS, PINNED_CONCURRENCY, PINNED_WARMUP));
  return measured.load(PINNED_REQUESTS);
}

interface ChargedCpu {
  readonly gatewayUs: number;
  readonly dbUs: number;
}

/**
 * CPU per request of the measured path's run, less what each process spends at the rate it
 * did during the direct run, when it served nothing (timers, pollers, work left over).
 */
function chargedCpu(load: Record<PathName, PinnedLoad>, name: PathName, requests: number): ChargedCpu {
  const idle = load.direct;
  const charge = (spent: number, idleSpent: number) =>
    Math.max(0, spent - (idleSpent / idle.wallMs) * load[name].wallMs) * (1000 / requests);
  return {
    gatewayUs: charge(load[name].gatewayCpuMs, idle.gatewayCpuMs),
    dbUs: charge(load[name].dbCpuMs, idle.dbCpuMs),
  };
}

const us = (micros: number) => `${Math.round(micros)} µs`;

/** A process and all its descendants. */
function processTree(pid: number): number[] {
  return [pid, ...childPids(pid).flatMap(processTree)];
}

/** Every thread of the process onto the given cores. */
function pin(pid: number, cores: string): void {
  execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cores, String(pid)], { stdio: 'ignore' });
}
