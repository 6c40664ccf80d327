import { setTimeout as sleep } from 'node:timers/promises';
import type { LocalGateway } from '../local/child-runtime.js';
import {
  callsByRound,
  capturedCalls,
  durationMs,
  forgetCaptured,
  roundCriticalPathMs,
  type FightCalls,
} from './arena-upstream.js';
import { benchKeys, idleCpu, startBenchGateway } from './gateway-overhead.js';
import { CLK_TCK, cpuMs } from './proc.js';
import { fmtMs, median, percent, table } from './stats.js';
import { postForEvents, type TimedEvent, type TimedStream } from './timed-sse.js';
import { sessionLogCost, type SessionLogCost } from './session-log-cost.js';
import { printVerdicts, verdict, type Verdict } from './verdicts.js';

/**
 * The arena's orchestration overhead (issue 9): one fight of all eight agents × 3 rounds per
 * style, brawl and blitz, against simulators paced like real models (400 ms to the first
 * token, 20 ms per token, 80-word answers; votes are a short forced tool call, paced the same).
 *
 * - wall: the fight request sent → the stream's last byte, at the client;
 * - critical path: the upstream time the fight cannot beat, from the simulators' own timings
 *   (arena-upstream.ts): brawl per round the sum of its 8 answer calls, blitz the longest,
 *   each plus the round's longest vote call;
 * - overhead = wall − critical path: everything the gateway and the loopback hops add;
 * - the runtime process's CPU (the gateway alone: simulators and DynamoDB run in other
 *   processes) per agent turn (answers + votes) and per answer, its idle rate subtracted;
 * - the first agent_delta of each round at the client minus the first answer byte its upstream
 *   call wrote (same machine clock).
 */

const PACING = '[sim:first_token_ms=400] [sim:token_ms=20] [sim:words=80]';
const ROUNDS = 3;
const STYLES = ['brawl', 'blitz'] as const;
/** After the stream ends: time for the session's after-response writes, counted in its CPU. */
const SETTLE_MS = 500;
/** Long enough for the idle rate to span many 10 ms CPU ticks: a brawl subtracts ~50 s of it. */
const IDLE_MS = 5000;

const TARGETS = { overheadShare: 0.03, firstDeltaMs: 5 };

type Style = (typeof STYLES)[number];

interface Fight {
  readonly style: Style;
  readonly stream: TimedStream;
  readonly calls: FightCalls;
  readonly cpuMs: number;
  readonly log: SessionLogCost;
}

export async function benchArena(): Promise<void> {
  const profileDir = process.env['BENCH_CPU_PROF'];
  const gateway = await startBenchGateway(profileDir);
  try {
    const [key] = await benchKeys(gateway, 1);
    const simulators = Object.values(gateway.info.simulators);
    // Unpaced, one round each: connections, JIT and caches warm before anything is measured.
    for (const style of STYLES) await fight(gateway, key!, style, 1, 'Warm up.');
    await sleep(SETTLE_MS);
    const idleMsPerS = await idleCpu(gateway.pid!, IDLE_MS);
    const fights: Fight[] = [];
    for (const style of STYLES) fights.push(await measuredFight(gateway, key!, simulators, style, idleMsPerS));
    report(fights, idleMsPerS);
    if (profileDir) console.log(`\nCPU profiles of the runtime process are written to ${profileDir} when it stops.`);
  } finally {
    gateway.output = '';
    await gateway.dispose();
  }
}

async function measuredFight(
  gateway: LocalGateway,
  key: string,
  simulators: readonly string[],
  style: Style,
  idleMsPerS: number,
): Promise<Fight> {
  await forgetCaptured(simulators);
  const pid = gateway.pid!;
  const cpuBefore = cpuMs(pid);
  const stream = await fight(gateway, key, style, ROUNDS, `Explain how a hash map handles collisions. ${PACING}`);
  await sleep(SETTLE_MS);
  const spanS = (stream.lastByteAt - stream.sentAt + SETTLE_MS) / 1000;
  const cpu = cpuMs(pid) - cpuBefore - idleMsPerS * spanS;
  const calls = callsByRound(await capturedCalls(simulators), ROUNDS);
  gateway.output = '';
  const sessionId = String(stream.events.find(isType('session_start'))!.data['sessionId']);
  const log = await sessionLogCost(gateway, sessionId, stream.lastByteAt - stream.sentAt);
  return { style, stream, calls, cpuMs: cpu, log };
}

async function fight(gateway: LocalGateway, key: string, style: Style, rounds: number, message: string) {
  const stream = await postForEvents(
    gateway.url('/api/v1/fight'),
    { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    JSON.stringify({ message, rounds, fightStyle: style }),
  );
  const failures = stream.events.filter((e) => e.data['type'] === 'error');
  if (stream.status !== 200 || failures.length > 0 || !stream.events.some(isType('session_complete')))
    throw new Error(`${style} fight: status ${stream.status}, errors ${JSON.stringify(failures.map((e) => e.data))}`);
  return stream;
}

const isType = (type: string) => (event: TimedEvent) => event.data['type'] === type;

interface Figures {
  readonly wallMs: number;
  readonly criticalMs: number;
  readonly answers: number;
  readonly votes: number;
  /** Per round: first agent_delta at the client − first answer byte at the simulator. */
  readonly roundFirstDeltaMs: number[];
  /** The same for every answer: its first agent_delta − its call's first byte. */
  readonly answerFirstDeltaMs: number[];
}

function figures(f: Fight): Figures {
  const agents = f.stream.events.find(isType('session_start'))!.data['agents'] as string[];
  const deltas = f.stream.events.filter(isType('agent_delta'));
  const firstByteOf = (event: TimedEvent) => {
    const round = f.calls.rounds[Number(event.data['round']) - 1];
    const call = round?.answers.get(agents.indexOf(String(event.data['agent'])));
    if (call?.firstByteAt === undefined) throw new Error(`no upstream call captured for ${JSON.stringify(event.data)}`);
    return call.firstByteAt;
  };
  const firstOf = (match: (event: TimedEvent) => boolean) => deltas.find(match);
  const roundFirst = f.calls.rounds.map((r) => firstOf((e) => e.data['round'] === r.round)!);
  const answerFirst = f.calls.rounds.flatMap((r) =>
    agents.map((agent) => firstOf((e) => e.data['round'] === r.round && e.data['agent'] === agent)!),
  );
  return {
    wallMs: f.stream.lastByteAt - f.stream.sentAt,
    criticalMs: f.calls.rounds.reduce((sum, round) => sum + roundCriticalPathMs(round, f.style), 0),
    answers: f.calls.rounds.reduce((sum, round) => sum + round.answers.size, 0),
    votes: f.calls.rounds.reduce((sum, round) => sum + round.votes.length, 0),
    roundFirstDeltaMs: roundFirst.map((event) => event.at - firstByteOf(event)),
    answerFirstDeltaMs: answerFirst.map((event) => event.at - firstByteOf(event)),
  };
}

function report(fights: readonly Fight[], idleMsPerS: number): void {
  console.log(
    `\nArena: one fight of 8 agents × ${ROUNDS} rounds per style, simulators paced ${PACING}; ` +
      `CPU = runtime process utime+stime (${CLK_TCK} ticks/s), idle ${idleMsPerS.toFixed(1)} ms/s subtracted\n`,
  );
  const rows = fights.map((f) => ({ f, x: figures(f) }));
  console.log(
    table([
      ['style', 'wall', 'critical path', 'overhead', 'share', 'answers+votes', 'CPU/turn', 'CPU/answer'],
      ...rows.map(({ f, x }) => [
        f.style,
        fmtMs(x.wallMs),
        fmtMs(x.criticalMs),
        fmtMs(x.wallMs - x.criticalMs),
        percent((x.wallMs - x.criticalMs) / x.wallMs),
        `${x.answers}+${x.votes}${f.calls.other.length ? ` (+${f.calls.other.length} other)` : ''}`,
        fmtMs(f.cpuMs / (x.answers + x.votes)),
        fmtMs(f.cpuMs / x.answers),
      ]),
    ]),
  );
  console.log('\nFirst agent_delta at the client − first answer byte written by its upstream\n');
  console.log(
    table([
      ['style', 'per round: max', 'p50', 'every answer: max', 'p50', 'slowest upstream call'],
      ...rows.map(({ f, x }) => [
        f.style,
        fmtMs(Math.max(...x.roundFirstDeltaMs)),
        fmtMs(median(x.roundFirstDeltaMs)),
        fmtMs(Math.max(...x.answerFirstDeltaMs)),
        fmtMs(median(x.answerFirstDeltaMs)),
        fmtMs(Math.max(...f.calls.rounds.flatMap((r) => [...r.answers.values(), ...r.votes].map(durationMs)))),
      ]),
    ]),
  );
  console.log('\nThe session log (DynamoDB, on-demand list price): every event written before it is sent\n');
  console.log(
    table([
      ['style', 'events', 'page writes', 'writes/event', 'page bytes', 'write units (pages + other)', '$ per fight'],
      ...fights.map(({ style, log }) => [
        style,
        String(log.events),
        String(log.pages),
        (log.pages / log.events).toFixed(3),
        `${(log.pageBytes / 1024).toFixed(1)} KB`,
        `${log.pageUnits} + ${log.otherUnits}`,
        `$${log.usd.toFixed(6)}`,
      ]),
    ]),
  );
  const verdicts: Verdict[] = rows.flatMap(({ f, x }) => [
    verdict(`${f.style}: overhead share of wall`, (x.wallMs - x.criticalMs) / x.wallMs, TARGETS.overheadShare, percent),
    verdict(
      `${f.style}: first agent_delta of a round (max)`,
      Math.max(...x.roundFirstDeltaMs),
      TARGETS.firstDeltaMs,
      fmtMs,
    ),
  ]);
  printVerdicts(verdicts);
}
