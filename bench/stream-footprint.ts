import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { AWS_PRICES } from '../lib/cost/aws-prices.js';
import { routes } from '../lib/routes.js';
import {
  LAMBDA_MB_PER_VCPU,
  MANAGED_INSTANCES_SIZING,
  SIZING_TARGETS,
  lambdaVcpuShare,
  streamsPerExecutionEnvironment,
} from '../lib/stream-sizing.js';
import { bundleRoute, LAMBDA_GLOBALS } from './bundles.js';
import { benchKeys, idleCpu, startBenchGateway } from './gateway-overhead.js';
import { keepAliveAgent, run, type Probe } from './load.js';
import { cpuMs, statusBytes } from './proc.js';
import { fmtBytes, fmtMs, median, table } from './stats.js';
import { printVerdicts, verdict } from './verdicts.js';

/**
 * `npm run bench -- memory`: what one streamed chat completion costs the function that serves
 * it, in CPU time and memory, so the streaming routes' memory (Lambda's only size knob, which
 * also sets their CPU share) and the Managed Instances mode's streams per execution environment
 * are chosen from figures rather than guessed (lib/stream-sizing.ts holds the choice).
 *
 * - Module base: a fresh Node process importing the chat completions bundle as the stack builds
 *   it (a cold start's memory before any request): RSS and V8 heap.
 * - Streams held open: STREAMS concurrent `POST /api/v1/chat/completions` (`stream: true`)
 *   against the OpenAI simulator paced as a real model writes: the first token after
 *   FIRST_TOKEN_MS, then CHUNKS chunks TOKEN_MS apart, 20 s in all. Not scaled down in time:
 *   the streams last the 20 s the cost figures price. The runtime process (the gateway alone:
 *   simulators, stand-ins and the embedded DynamoDB run in other processes) is read from /proc:
 *   CPU before the first upstream token (the work that delays the first byte), CPU for the whole
 *   request including the writes after its last byte, and its resident set sampled every
 *   SAMPLE_MS; the runtime's idle CPU over the same time is subtracted.
 * - Non-streamed, for comparison: the same requests with `stream: false`, answered whole after
 *   the same 20 s of upstream pacing.
 * - A chat mode, for its routes (battle, fight, the legacy chat): FIGHTS blitz fights of one
 *   round open at once, each eight agents streaming side by side at the same pacing, then their
 *   votes; read the same way, per fight, with the fight function's own module base.
 * - First byte at concurrency 1: the gateway's time to the first streamed byte minus the
 *   upstream's first-token delay, on a warm runtime.
 *
 * CPU is measured on this machine's cores at full speed; Lambda gives a function CPU in
 * proportion to its memory (1,769 MB = one vCPU), so the CPU before the first byte stretches by
 * 1769 / MB, which the sizing table prints for each candidate size, with the cold start's import
 * stretched the same way (if the Init phase gets the same share).
 */
const STREAMS = 50;
/** Non-streamed requests cost little CPU each: more of them, so the idle CPU's noise spreads thinner. */
const WHOLE_REQUESTS = 200;
const FIRST_TOKEN_MS = 1000;
const TOKEN_MS = 19;
const CHUNKS = 1000;
const SAMPLE_MS = 50;
/** Before the upstream's first token: every request has been read, checked and sent upstream. */
const PRE_TOKEN_SAMPLE_MS = FIRST_TOKEN_MS - 200;
/** After the last byte: the ledger and totals writes land (local write-behind windows are 20 ms). */
const SETTLE_MS = 1500;
const TTFB_SAMPLES = 20;
/** Fights open at once: each runs eight agents' streams side by side. */
const FIGHTS = 5;
const CANDIDATE_MB = [128, 160, 192, 224, 256, 512, 1024, 1769] as const;

const PACING = `[sim:first_token_ms=${FIRST_TOKEN_MS}] [sim:token_ms=${TOKEN_MS}] [sim:words=${CHUNKS}]`;

export interface ModuleFootprint {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly initMs: number;
}

export interface PhaseFootprint {
  readonly name: string;
  /** Requests open at once. */
  readonly count: number;
  /** Milliseconds from the first request sent to the last answer read (median request). */
  readonly medianTotalMs: number;
  /** CPU ms a request, before the upstream's first token. */
  readonly cpuBeforeFirstTokenMs: number;
  /** CPU ms a request, all of it (after-response writes included). */
  readonly cpuPerRequestMs: number;
  /** Peak resident set growth while the requests were open, per open request. */
  readonly rssPerOpenRequestBytes: number;
  /** The answer's bytes (median request): about what the upstream sent, in the same wire format. */
  readonly answerBytes: number;
}

export async function benchStreamFootprint(): Promise<void> {
  const route = routes.find((r) => r.id === 'chat-completions');
  if (!route) throw new Error('no chat-completions route in the manifest');
  const base = moduleFootprint(await bundleRoute(route));
  const fightRoute = routes.find((r) => r.id === 'fight');
  if (!fightRoute) throw new Error('no fight route in the manifest');
  const fightBase = moduleFootprint(await bundleRoute(fightRoute));

  const gateway = await startBenchGateway();
  try {
    const pid = gateway.pid!;
    const [key] = await benchKeys(gateway, 1);
    const runId = randomBytes(4).toString('hex');
    const probe = (stream: boolean, pacing: string): Probe => ({
      name: stream ? 'stream' : 'whole',
      url: new URL(gateway.url('/api/v1/chat/completions')),
      headers: () => ({
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        Accept: stream ? 'text/event-stream' : 'application/json',
      }),
      body: (i) =>
        JSON.stringify({
          model: 'gpt',
          stream,
          messages: [{ role: 'user', content: `footprint ${runId} ${stream} ${i} ${pacing}` }],
        }),
    });
    // Warm the runtime: every module the route loads lazily, the key cache, the JIT.
    await run(probe(true, '[sim:words=20]'), 40, 4, 0);
    await run(probe(false, '[sim:words=20]'), 40, 4, 100);

    const ttfb = (await run(probe(true, '[sim:first_token_ms=300] [sim:words=5]'), TTFB_SAMPLES, 1, 200)).outcomes.map(
      (o) => o.firstByteMs - 300,
    );
    const phases: PhaseFootprint[] = [];
    const idle: number[] = [];
    for (const [index, stream] of [true, false].entries()) {
      idle.push(await idleCpu(pid, 3000));
      const count = stream ? STREAMS : WHOLE_REQUESTS;
      phases.push(await phase(pid, probe(stream, PACING), count, 1000 * (index + 1), idle[index]!));
    }
    const fightProbe: Probe = {
      name: 'fight',
      url: new URL(gateway.url('/api/v1/fight')),
      headers: () => ({ Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }),
      body: (i) =>
        JSON.stringify({ message: `footprint ${runId} fight ${i} ${PACING}`, rounds: 1, fightStyle: 'blitz' }),
    };
    await run({ ...fightProbe, body: (i) => fightProbe.body(i).replace(PACING, '[sim:words=20]') }, 2, 2, 0);
    idle.push(await idleCpu(pid, 3000));
    const fight = await phase(pid, fightProbe, FIGHTS, 5000, idle[idle.length - 1]!);
    report(base, phases, median(ttfb), Math.max(...idle));
    reportChatModes(fightBase, fight);
  } finally {
    gateway.output = '';
    await gateway.dispose();
  }
}

async function phase(
  pid: number,
  probe: Probe,
  count: number,
  firstIndex: number,
  idleMsPerS: number,
): Promise<PhaseFootprint> {
  const rssBefore = statusBytes(pid, 'VmRSS');
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, statusBytes(pid, 'VmRSS'))), SAMPLE_MS);
  const agent = keepAliveAgent(count);
  const started = performance.now();
  const cpuStart = cpuMs(pid);
  let cpuBeforeToken = NaN;
  const preToken = setTimeout(() => (cpuBeforeToken = cpuMs(pid) - cpuStart), PRE_TOKEN_SAMPLE_MS);
  try {
    const { outcomes } = await run(probe, count, count, firstIndex, agent);
    await new Promise((done) => setTimeout(done, SETTLE_MS));
    const elapsedS = (performance.now() - started) / 1000;
    const cpu = cpuMs(pid) - cpuStart - idleMsPerS * elapsedS;
    const idleBeforeToken = (idleMsPerS * PRE_TOKEN_SAMPLE_MS) / 1000;
    return {
      name: probe.name,
      medianTotalMs: median(outcomes.map((o) => o.totalMs)),
      count,
      cpuBeforeFirstTokenMs: Math.max(0, cpuBeforeToken - idleBeforeToken) / count,
      cpuPerRequestMs: cpu / count,
      rssPerOpenRequestBytes: Math.max(0, rssPeak - rssBefore) / count,
      answerBytes: median(outcomes.map((o) => o.bytes)),
    };
  } finally {
    clearInterval(sampler);
    clearTimeout(preToken);
    agent.destroy();
  }
}

const CHAT_MODE_CANDIDATE_MB = [256, 384, 512, 768, 1024] as const;

/** The chat modes' routes: a fight's CPU share over its length, and its memory, per candidate size. */
function reportChatModes(base: ModuleFootprint, fight: PhaseFootprint): void {
  const fightRoute = routes.find((r) => r.id === 'fight')!;
  const cpuShare = fight.cpuPerRequestMs / fight.medianTotalMs;
  const peakBytes = base.rssBytes + fight.rssPerOpenRequestBytes;
  console.log(
    `\nChat modes: a blitz fight of one round, eight agents streaming at once (${FIGHTS} fights open): ` +
      `${fmtMs(fight.medianTotalMs)} long, CPU ${fmtMs(fight.cpuPerRequestMs)} a fight ` +
      `(${fmtMs(fight.cpuBeforeFirstTokenMs)} before the first token), RSS ${fmtBytes(fight.rssPerOpenRequestBytes)} ` +
      `per open fight; module base RSS ${fmtBytes(base.rssBytes)}, import ${fmtMs(base.initMs)}\n`,
  );
  console.log(
    table([
      ['memory', 'vCPU share', 'CPU busy during a fight', 'CPU before first byte', 'memory used'],
      ...CHAT_MODE_CANDIDATE_MB.map((mb) => [
        `${mb} MB${mb === fightRoute.memoryMb ? ' (manifest)' : ''}`,
        lambdaVcpuShare(mb).toFixed(3),
        `${((100 * cpuShare) / lambdaVcpuShare(mb)).toFixed(0)}%`,
        fmtMs(fight.cpuBeforeFirstTokenMs / lambdaVcpuShare(mb)),
        `${((100 * peakBytes) / (mb * 1024 * 1024)).toFixed(0)}%`,
      ]),
    ]),
  );
  const t = SIZING_TARGETS;
  const mb = fightRoute.memoryMb;
  printVerdicts([
    verdict(
      `fight memory used at ${mb} MB (module base + one open fight)`,
      peakBytes / (mb * 1024 * 1024),
      t.maxMemoryUse,
      (share) => `${(share * 100).toFixed(0)}%`,
    ),
    verdict(
      `fight CPU busy on average at ${mb} MB`,
      cpuShare / lambdaVcpuShare(mb),
      t.maxChatModeCpuBusy,
      (share) => `${(share * 100).toFixed(0)}%`,
    ),
    verdict(
      `fight first byte later than at 1024 MB, at ${mb} MB`,
      fight.cpuBeforeFirstTokenMs / lambdaVcpuShare(mb) - fight.cpuBeforeFirstTokenMs / lambdaVcpuShare(1024),
      t.maxAddedFirstByteMs,
      fmtMs,
    ),
  ]);
}

/** A fresh process importing the bundle, as a cold start does: its memory once the import is done. */
function moduleFootprint(bundle: string): ModuleFootprint {
  const script =
    `${LAMBDA_GLOBALS}const t=performance.now();await import(${JSON.stringify(bundle)});const initMs=performance.now()-t;` +
    'const m=process.memoryUsage();process.stdout.write(JSON.stringify({rssBytes:m.rss,heapUsedBytes:m.heapUsed,initMs}))';
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, AWS_REGION: 'us-east-1', POWERTOOLS_LOG_LEVEL: 'WARN' },
  });
  return JSON.parse(output.toString()) as ModuleFootprint;
}

const signedMs = (ms: number) => `${ms < 0 ? '−' : '+'}${fmtMs(Math.abs(ms))}`;

/** Lambda compute per million requests of `seconds` at `mb` (arm64). */
const computePerMillion = (mb: number, seconds: number) => (mb / 1024) * seconds * 1e6 * AWS_PRICES.lambda.perGbSecond;

function report(base: ModuleFootprint, phases: readonly PhaseFootprint[], ttfbMs: number, idleMsPerS: number): void {
  const [streamed] = phases;
  const chat = routes.find((r) => r.id === 'chat-completions')!;
  console.log(
    `\nStream footprint: POST /api/v1/chat/completions held open 20 s by the OpenAI simulator ` +
      `(first token at ${FIRST_TOKEN_MS} ms, then ${CHUNKS} chunks ${TOKEN_MS} ms apart); ` +
      `the runtime's idle CPU (up to ${idleMsPerS.toFixed(1)} ms/s) subtracted\n`,
  );
  console.log(
    table([
      [
        '',
        'open at once',
        'request length',
        'CPU before first token',
        'CPU a request',
        'RSS per open request',
        'answer',
      ],
      ...phases.map((p) => [
        p.name === 'stream' ? 'streamed (SSE)' : 'non-streamed',
        p.count,
        fmtMs(p.medianTotalMs),
        fmtMs(p.cpuBeforeFirstTokenMs),
        fmtMs(p.cpuPerRequestMs),
        fmtBytes(p.rssPerOpenRequestBytes),
        fmtBytes(p.answerBytes),
      ]),
    ]),
  );
  console.log(
    `\nModule base (fresh process, chat completions bundle imported): RSS ${fmtBytes(base.rssBytes)}, ` +
      `V8 heap used ${fmtBytes(base.heapUsedBytes)}, import ${fmtMs(base.initMs)}; ` +
      `gateway's own time to the first streamed byte at concurrency 1: ${fmtMs(ttfbMs)}`,
  );
  if (!streamed) return;

  const peakBytes = base.rssBytes + streamed.rssPerOpenRequestBytes;
  const stretch = (mb: number) => streamed.cpuBeforeFirstTokenMs / lambdaVcpuShare(mb);
  console.log(`\nSizing on on-demand Lambda (one request per environment; CPU share = MB / ${LAMBDA_MB_PER_VCPU}):\n`);
  console.log(
    table([
      [
        'memory',
        'vCPU share',
        'CPU before first byte',
        'vs 1024 MB',
        'cold import',
        'memory used',
        'compute, 1M × 20 s',
      ],
      ...CANDIDATE_MB.map((mb) => [
        `${mb} MB${mb === chat.memoryMb ? ' (manifest)' : ''}`,
        lambdaVcpuShare(mb).toFixed(3),
        fmtMs(stretch(mb)),
        signedMs(stretch(mb) - stretch(1024)),
        fmtMs(base.initMs / lambdaVcpuShare(mb)),
        `${((100 * peakBytes) / (mb * 1024 * 1024)).toFixed(0)}%`,
        `$${computePerMillion(mb, 20).toFixed(2)}`,
      ]),
    ]),
  );

  const mi = MANAGED_INSTANCES_SIZING;
  const perEnvironment = streamsPerExecutionEnvironment({
    cpuMsPerStream: streamed.cpuPerRequestMs,
    streamSeconds: 20,
    rssPerStreamBytes: streamed.rssPerOpenRequestBytes,
    baseBytes: base.rssBytes,
  });
  console.log(
    `\nManaged Instances (${mi.memoryMb} MB, ${mi.memoryMb / 1024 / mi.memoryGiBPerVcpu} vCPU an environment): ` +
      `by CPU at ${mi.targetCpuUtilization * 100}% utilisation ${perEnvironment.byCpu} streams, by memory ` +
      `${perEnvironment.byMemory}; configured PerExecutionEnvironmentMaxConcurrency ${mi.perEnvironmentConcurrency}`,
  );

  const t = SIZING_TARGETS;
  printVerdicts([
    verdict(
      `memory used at ${chat.memoryMb} MB (module base + one open stream)`,
      peakBytes / (chat.memoryMb * 1024 * 1024),
      t.maxMemoryUse,
      (share) => `${(share * 100).toFixed(0)}%`,
    ),
    verdict(
      `first byte later than at 1024 MB, at ${chat.memoryMb} MB`,
      stretch(chat.memoryMb) - stretch(1024),
      t.maxAddedFirstByteMs,
      fmtMs,
    ),
    verdict(
      `streams a Managed Instances environment holds (CPU, memory) vs configured`,
      Math.min(perEnvironment.byCpu, perEnvironment.byMemory),
      mi.perEnvironmentConcurrency,
      (n) => String(Math.floor(n)),
      'min',
    ),
  ]);
}
