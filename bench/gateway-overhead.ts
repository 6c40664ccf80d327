import { randomBytes } from 'node:crypto';
import { LocalGateway } from '../local/child-runtime.js';
import { startFloorProxy, type FloorProxy } from './floor-proxy.js';
import { keepAliveAgent, run, type Outcome, type Probe } from './load.js';
import { childPids, CLK_TCK, commandLine, cpuMs, statusBytes } from './proc.js';
import { fmtBytes, fmtMs, percentile, table } from './stats.js';

/**
 * What the gateway adds to a chat completion, measured in one run on loopback against one
 * upstream, the runtime's OpenAI simulator (`<simulator>/v1/chat/completions`):
 *
 * - direct:  client → simulator
 * - floor:   client → bare pass-through proxy (bench/floor-proxy-server.ts, its own process) → simulator
 * - gateway: client → `npm start` `/api/v1/chat/completions` (model `gpt` → openai `gpt-5`) → simulator,
 *            with authentication (secret key), the per-key rate limit, the response cache
 *            (every request a MISS: a unique message, so the cache is read and then written)
 *            and usage metering all on, logging at INFO as in production.
 *
 * Direct and floor requests carry the body and headers the gateway itself sends upstream
 * (`stream`, `stream_options.include_usage` for streams), so the upstream does the same work
 * on every path and the differences are the hops'.
 *
 * The simulators and AWS stand-ins run in their own process (local/services-child.ts) and
 * the embedded DynamoDB (dynalite) in another, so the runtime process is the gateway alone.
 * Whatever the runtime process spends during the direct run (where it serves nothing) is
 * still measured and subtracted, so a background cost would not be charged to the gateway.
 * /proc/<pid>/stat utime+stime cover the process's own threads only, never its children.
 *
 * One secret key admits at most 10000 requests a minute (its highest rate limit), so gateway
 * requests go round-robin over enough keys of one account that none takes more than
 * REQUESTS_PER_KEY in the whole run, which can never trip the limiter.
 */

const C1_WARMUP = 200;
/** Per path, measured in two halves, direct-floor-gateway then gateway-floor-direct, to cancel drift. */
const C1_SAMPLES = 2000;
const CONCURRENCY = 50;
const C50_WARMUP = 500;
const C50_REQUESTS = 3000;
const STREAM_WARMUP = 100;
const STREAM_SAMPLES = 1000;
const HIT_WARMUP = 100;
const HIT_SAMPLES = 2000;
const REQUESTS_PER_KEY = 5000;
const GATEWAY_REQUESTS =
  C1_WARMUP + C1_SAMPLES + C50_WARMUP + C50_REQUESTS + STREAM_WARMUP + STREAM_SAMPLES + 1 + HIT_WARMUP + HIT_SAMPLES;
const KEY_COUNT = Math.ceil(GATEWAY_REQUESTS / REQUESTS_PER_KEY);
const IDLE_MS = 1000;
const MIB = 1024 * 1024;

/** The issue's targets (2-core machine). */
const TARGETS = {
  addedP50Ms: 1,
  addedTtfbMs: 1,
  cpuUsPerRequest: 300,
  hitP50Ms: 1,
  peakRssBytes: 120 * MIB,
};

export type PathName = 'direct' | 'floor' | 'gateway';

export interface Paths {
  readonly direct: Probe;
  readonly floor: Probe;
  readonly gateway: Probe;
}

/**
 * The runtime as benchmarks run it: logs at INFO as in production, and with `BENCH_CPU_PROF`
 * set, CPU profiles of its processes written to that folder when it stops.
 */
export function startBenchGateway(profileDir = process.env['BENCH_CPU_PROF']): Promise<LocalGateway> {
  return LocalGateway.start({
    POWERTOOLS_LOG_LEVEL: 'INFO',
    ...(profileDir
      ? { NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --cpu-prof --cpu-prof-dir=${profileDir}`.trim() }
      : {}),
  });
}

export async function benchGatewayOverhead(): Promise<void> {
  const profileDir = process.env['BENCH_CPU_PROF'];
  const gateway = await startBenchGateway(profileDir);
  let floor: FloorProxy | undefined;
  try {
    const runtimePid = gateway.pid!;
    const simulator = gateway.info.simulators['openai'];
    if (!simulator) throw new Error('the runtime started no OpenAI simulator (is OPENAI_API_KEY set?)');
    floor = await startFloorProxy(simulator);
    const keys = await benchKeys(gateway, KEY_COUNT);
    const rss: [string, number][] = [['after start', statusBytes(runtimePid, 'VmRSS')]];
    const idleCpuMsPerS = await idleCpu(runtimePid);
    const runId = randomBytes(4).toString('hex');

    const nonStreaming = paths(gateway, floor, simulator, keys, runId, false);
    const streaming = paths(gateway, floor, simulator, keys, runId, true);

    // 1. Latency at concurrency 1.
    for (const name of ORDER) await run(nonStreaming[name], C1_WARMUP, 1, 0);
    const c1: Record<PathName, number[]> = { direct: [], floor: [], gateway: [] };
    const half = C1_SAMPLES / 2;
    for (const [round, order] of [ORDER, [...ORDER].reverse()].entries()) {
      for (const name of order) {
        const { outcomes } = await run(nonStreaming[name], half, 1, C1_WARMUP + round * half);
        c1[name].push(...outcomes.map((o) => o.totalMs));
      }
    }
    gateway.output = '';

    // 2. Throughput and CPU per request at concurrency 50.
    rss.push(['after c=1', statusBytes(runtimePid, 'VmRSS')]);
    const c50 = {} as Record<PathName, C50>;
    // The embedded DynamoDB: the runtime's child running local/dynamodb-child.mjs.
    const dbPids = childPids(runtimePid).filter((pid) => commandLine(pid).includes('dynamodb-child'));
    const base = C1_WARMUP + C1_SAMPLES;
    for (const name of ORDER) {
      await run(nonStreaming[name], C50_WARMUP, CONCURRENCY, base);
      const before = { runtime: cpuMs(runtimePid), floor: cpuMs(floor.pid), db: sumCpu(dbPids) };
      const { wallMs } = await run(nonStreaming[name], C50_REQUESTS, CONCURRENCY, base + C50_WARMUP);
      c50[name] = {
        rps: (C50_REQUESTS * 1000) / wallMs,
        runtimeCpuMs: cpuMs(runtimePid) - before.runtime,
        floorCpuMs: cpuMs(floor.pid) - before.floor,
        dbCpuMs: sumCpu(dbPids) - before.db,
      };
      gateway.output = '';
    }
    rss.push(['after c=50', statusBytes(runtimePid, 'VmRSS')]);

    // 3. Time to the first streamed body byte, concurrency 1.
    const ttfb: Record<PathName, number[]> = { direct: [], floor: [], gateway: [] };
    for (const name of ORDER) {
      await run(streaming[name], STREAM_WARMUP, 1, 0);
      const { outcomes } = await run(streaming[name], STREAM_SAMPLES, 1, STREAM_WARMUP);
      ttfb[name] = outcomes.map((o) => o.firstByteMs);
    }
    gateway.output = '';
    rss.push(['after streams', statusBytes(runtimePid, 'VmRSS')]);

    // 4. Cache HIT: one identical request, after the MISS that stores it.
    const hit = hitProbe(gateway, keys, runId);
    const first = await run({ ...hit, check: undefined }, 1, 1, 0);
    if (first.outcomes[0]!.headers['x-cache'] !== 'MISS')
      throw new Error(`cache: first request answered X-Cache ${String(first.outcomes[0]!.headers['x-cache'])}`);
    await waitForHit(hit);
    await run(hit, HIT_WARMUP, 1, 0);
    const hits = (await run(hit, HIT_SAMPLES, 1, 0)).outcomes.map((o) => o.totalMs);

    // 5. Peak resident set of the runtime process over the whole run.
    rss.push(['after cache hits', statusBytes(runtimePid, 'VmRSS')]);
    const peakRss = statusBytes(runtimePid, 'VmHWM');

    report({ c1, c50, ttfb, hits, peakRss, rss, idleCpuMsPerS, keys: keys.length, runtimePid, dbPids });
    if (profileDir)
      console.log(
        `\nCPU profiles of the runtime process (and of dynalite) are written to ${profileDir} when it stops.`,
      );
  } finally {
    await floor?.stop();
    gateway.output = '';
    await gateway.dispose();
  }
}

export const ORDER: readonly PathName[] = ['direct', 'floor', 'gateway'];

/** Same length for every path and phase; unique per request index (so the gateway always misses). */
const message = (runId: string, stream: boolean, i: number) =>
  `bench ${runId} ${stream ? 'stream' : 'plain'} ${String(i).padStart(7, '0')}`;

export function paths(
  gateway: LocalGateway,
  floor: FloorProxy,
  simulator: string,
  keys: readonly string[],
  runId: string,
  stream: boolean,
): Paths {
  const accept = stream ? 'text/event-stream' : 'application/json';
  // Exactly what the gateway sends upstream for the same request (see the simulator's /__sim/requests).
  const upstreamBody = (i: number) =>
    JSON.stringify({
      model: 'gpt-5',
      messages: [{ role: 'user', content: message(runId, stream, i) }],
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    });
  const upstreamHeaders = () => ({
    Authorization: 'Bearer sk-bench-direct',
    'Content-Type': 'application/json',
    Accept: accept,
  });
  let sent = 0;
  return {
    direct: {
      name: `direct${stream ? ' stream' : ''}`,
      url: new URL('/v1/chat/completions', simulator),
      headers: upstreamHeaders,
      body: upstreamBody,
    },
    floor: {
      name: `floor${stream ? ' stream' : ''}`,
      url: new URL('/v1/chat/completions', floor.url),
      headers: upstreamHeaders,
      body: upstreamBody,
    },
    gateway: {
      name: `gateway${stream ? ' stream' : ''}`,
      url: new URL(gateway.url('/api/v1/chat/completions')),
      headers: () => ({
        Authorization: `Bearer ${keys[sent++ % keys.length]}`,
        'Content-Type': 'application/json',
        Accept: accept,
      }),
      body: (i) =>
        JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: message(runId, stream, i) }], stream }),
      check: stream
        ? (o) =>
            String(o.headers['content-type']).startsWith('text/event-stream')
              ? undefined
              : `not a stream: ${String(o.headers['content-type'])}`
        : (o) =>
            o.headers['x-cache'] === 'MISS' ? undefined : `expected X-Cache MISS, got ${String(o.headers['x-cache'])}`,
    },
  };
}

function hitProbe(gateway: LocalGateway, keys: readonly string[], runId: string): Probe {
  let sent = 0;
  const body = JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: `bench ${runId} cache hit` }] });
  return {
    name: 'gateway cache hit',
    url: new URL(gateway.url('/api/v1/chat/completions')),
    headers: () => ({ Authorization: `Bearer ${keys[sent++ % keys.length]}`, 'Content-Type': 'application/json' }),
    body: () => body,
    check: (o: Outcome) =>
      o.headers['x-cache'] === 'HIT' ? undefined : `expected X-Cache HIT, got ${String(o.headers['x-cache'])}`,
  };
}

/** The MISS stores its answer after responding: poll until the same request is a HIT. */
async function waitForHit(probe: Probe): Promise<void> {
  const agent = keepAliveAgent(1);
  try {
    for (let tries = 0; tries < 50; tries++) {
      await new Promise((done) => setTimeout(done, 20));
      const { outcomes } = await run({ ...probe, check: undefined }, 1, 1, 0, agent);
      if (outcomes[0]!.headers['x-cache'] === 'HIT') return;
    }
    throw new Error('cache: the answer was never served as a HIT');
  } finally {
    agent.destroy();
  }
}

export async function benchKeys(gateway: LocalGateway, count: number): Promise<string[]> {
  const admin = { Authorization: `Bearer ${gateway.info.adminToken}`, 'Content-Type': 'application/json' };
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await fetch(gateway.url(path), { method: 'POST', headers: admin, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const account = await post<{ data: { accountId: string } }>('/api/admin/v1/accounts', {
    email: 'overhead-bench@example.com',
    name: 'Overhead bench',
  });
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const key = await post<{ data: { key: string } }>('/api/admin/v1/keys', {
      accountId: account.data.accountId,
      type: 'secret',
      name: `overhead bench ${i + 1}`,
      rateLimit: 10000,
    });
    keys.push(key.data.key);
  }
  return keys;
}

/** CPU the runtime process burns with no request in flight (timers, pollers), in ms per second. */
export async function idleCpu(pid: number, overMs = IDLE_MS): Promise<number> {
  const before = cpuMs(pid);
  await new Promise((done) => setTimeout(done, overMs));
  return ((cpuMs(pid) - before) * 1000) / overMs;
}

const sumCpu = (pids: readonly number[]) => pids.reduce((sum, pid) => sum + safeCpu(pid), 0);

function safeCpu(pid: number): number {
  try {
    return cpuMs(pid);
  } catch {
    return 0;
  }
}

interface C50 {
  rps: number;
  runtimeCpuMs: number;
  floorCpuMs: number;
  dbCpuMs: number;
}

interface Results {
  c1: Record<PathName, number[]>;
  c50: Record<PathName, C50>;
  ttfb: Record<PathName, number[]>;
  hits: number[];
  peakRss: number;
  /** VmRSS of the runtime process at points of the run. */
  rss: [string, number][];
  idleCpuMsPerS: number;
  keys: number;
  runtimePid: number;
  dbPids: number[];
}

const us = (ms: number) => `${Math.round(ms * 1000)} µs`;
const signedMs = (ms: number) => `${ms < 0 ? '-' : '+'}${fmtMs(Math.abs(ms))}`;

function report(r: Results): void {
  const p = (samples: number[], q: number) => percentile(samples, q);
  const direct50 = p(r.c1.direct, 50);
  const direct99 = p(r.c1.direct, 99);
  const added50 = p(r.c1.gateway, 50) - direct50;
  const floorAdded50 = p(r.c1.floor, 50) - direct50;

  console.log(
    `\nGateway overhead on loopback: one OpenAI simulator upstream (in the local services process); floor = bare node:http proxy in its own process;` +
      `\ngateway = POST /api/v1/chat/completions with auth + rate limit + cache (MISS) + usage metering, logs at INFO; ${r.keys} keys round-robin`,
  );

  console.log(
    `\nLatency, concurrency 1, non-streaming (${C1_SAMPLES} sequential requests per path after ${C1_WARMUP} warm-up, keep-alive)\n`,
  );
  console.log(
    table([
      ['path', 'p50', 'p99', 'added p50', 'added p99'],
      ...ORDER.map((name) => [
        name,
        fmtMs(p(r.c1[name], 50)),
        fmtMs(p(r.c1[name], 99)),
        name === 'direct' ? '-' : signedMs(p(r.c1[name], 50) - direct50),
        name === 'direct' ? '-' : signedMs(p(r.c1[name], 99) - direct99),
      ]),
    ]),
  );

  const simCpu = r.c50.direct.runtimeCpuMs / C50_REQUESTS;
  const gatewayRawCpu = r.c50.gateway.runtimeCpuMs / C50_REQUESTS;
  const gatewayCpu = gatewayRawCpu - simCpu;
  const floorCpu = r.c50.floor.floorCpuMs / C50_REQUESTS;
  const dbCpu = r.c50.gateway.dbCpuMs / C50_REQUESTS;
  console.log(
    `\nThroughput and CPU, concurrency ${CONCURRENCY}, non-streaming (${C50_REQUESTS} requests per path after ${C50_WARMUP} warm-up; CPU = utime+stime from /proc, ${CLK_TCK} ticks/s)\n`,
  );
  console.log(
    table([
      ['path', 'req/s', 'runtime process CPU/req', 'floor proxy CPU/req', 'dynalite CPU/req (not counted)'],
      ...ORDER.map((name) => [
        name,
        r.c50[name].rps.toFixed(0),
        us(r.c50[name].runtimeCpuMs / C50_REQUESTS),
        us(r.c50[name].floorCpuMs / C50_REQUESTS),
        us(r.c50[name].dbCpuMs / C50_REQUESTS),
      ]),
    ]),
  );
  console.log(
    `\ngateway CPU/request = runtime process during the gateway run (${us(gatewayRawCpu)}) - its background share, measured in the direct run (${us(simCpu)}) = ${us(gatewayCpu)}` +
      `\n(floor proxy for comparison: ${us(floorCpu)}/request; runtime process idle: ${r.idleCpuMsPerS.toFixed(1)} ms CPU/s; dynalite pid ${r.dbPids.join(', ') || 'not found'})`,
  );

  const ttfbDirect = p(r.ttfb.direct, 50);
  const addedTtfb = p(r.ttfb.gateway, 50) - ttfbDirect;
  console.log(
    `\nTime to first streamed body byte, concurrency 1, stream:true (${STREAM_SAMPLES} requests per path after ${STREAM_WARMUP} warm-up)\n`,
  );
  console.log(
    table([
      ['path', 'TTFB p50', 'TTFB p99', 'added p50', 'added p99'],
      ...ORDER.map((name) => [
        name,
        fmtMs(p(r.ttfb[name], 50)),
        fmtMs(p(r.ttfb[name], 99)),
        name === 'direct' ? '-' : signedMs(p(r.ttfb[name], 50) - ttfbDirect),
        name === 'direct' ? '-' : signedMs(p(r.ttfb[name], 99) - p(r.ttfb.direct, 99)),
      ]),
    ]),
  );

  const hit50 = p(r.hits, 50);
  console.log(`\nCache HIT, concurrency 1 (${HIT_SAMPLES} identical requests after the MISS that stored the answer)\n`);
  console.log(
    `p50 ${fmtMs(hit50)}   p99 ${fmtMs(p(r.hits, 99))}   max ${fmtMs(Math.max(...r.hits))}   (direct upstream p50 ${fmtMs(direct50)})`,
  );

  console.log(
    `\nPeak RSS of the runtime process (VmHWM, pid ${r.runtimePid}): ${fmtBytes(r.peakRss)}; ` +
      `VmRSS ${r.rss.map(([when, bytes]) => `${when} ${fmtBytes(bytes)}`).join(', ')}.` +
      `\nThe process is the gateway alone, run from its esbuild bundle; simulators, stand-ins and dynalite are separate processes.`,
  );

  const rows: Verdict[] = [
    verdict(
      'added p50, c=1, every feature on',
      added50,
      TARGETS.addedP50Ms,
      fmtMs,
      `gateway p50 ${fmtMs(p(r.c1.gateway, 50))} vs direct ${fmtMs(direct50)}; the floor adds ${signedMs(floorAdded50)}`,
    ),
    verdict(
      'added TTFB p50, stream',
      addedTtfb,
      TARGETS.addedTtfbMs,
      fmtMs,
      `gateway TTFB p50 ${fmtMs(p(r.ttfb.gateway, 50))} vs direct ${fmtMs(ttfbDirect)}; the floor adds ${signedMs(p(r.ttfb.floor, 50) - ttfbDirect)}`,
    ),
    verdict(
      'gateway CPU per request, c=50',
      gatewayCpu,
      TARGETS.cpuUsPerRequest / 1000,
      us,
      `runtime process ${us(gatewayRawCpu)}/req of which simulator ${us(simCpu)}; dynalite (not counted) another ${us(dbCpu)}/req; floor proxy ${us(floorCpu)}/req`,
    ),
    verdict(
      'cache HIT p50, c=1',
      hit50,
      TARGETS.hitP50Ms,
      fmtMs,
      `HIT p99 ${fmtMs(p(r.hits, 99))}; direct upstream p50 is ${fmtMs(direct50)}`,
    ),
    verdict(
      'peak RSS, runtime process',
      r.peakRss,
      TARGETS.peakRssBytes,
      fmtBytes,
      `${fmtBytes(r.rss[0]![1])} right after start, ${fmtBytes(r.rss[2]![1])} after the c=${CONCURRENCY} runs`,
    ),
  ];
  console.log('\nTargets (issue: 2-core machine)\n');
  console.log(
    table([
      ['metric', 'measured', 'target', 'verdict'],
      ...rows.map((v) => [v.metric, v.measured, v.target, v.verdict]),
    ]),
  );
  const misses = rows.filter((v) => !v.pass);
  if (misses.length > 0) {
    console.log('');
    for (const miss of misses) console.log(`MISS ${miss.metric}: ${miss.verdict}; ${miss.note}`);
  }
  console.log(
    `\nFor reference: the floor adds ${signedMs(floorAdded50)} p50 and ${signedMs(p(r.ttfb.floor, 50) - ttfbDirect)} TTFB here ` +
      `(issue: about +0.1 ms and +0.3 ms); throughput direct ${r.c50.direct.rps.toFixed(0)}, floor ${r.c50.floor.rps.toFixed(0)}, gateway ${r.c50.gateway.rps.toFixed(0)} req/s.`,
  );
}

interface Verdict {
  metric: string;
  measured: string;
  target: string;
  verdict: string;
  pass: boolean;
  note: string;
}

function verdict(metric: string, value: number, limit: number, fmt: (v: number) => string, note: string): Verdict {
  const pass = value <= limit;
  const margin = Math.abs(limit - value);
  return {
    metric,
    measured: fmt(value),
    target: `≤ ${fmt(limit)}`,
    verdict: pass
      ? `PASS (${fmt(margin)} under)`
      : `MISS by ${fmt(margin)} (${((value / limit) * 100).toFixed(0)}% of target)`,
    pass,
    note,
  };
}
