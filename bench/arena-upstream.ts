/**
 * A fight's upstream calls, read back from the simulators' captured requests (`GET
 * /__sim/requests`, with receivedAt / firstByteAt / endedAt), sorted into rounds, and the
 * critical path of upstream time they impose on the fight.
 *
 * An answer call is recognised by the arena's brief in its system message (`You are Agent 3,
 * one of 8 AI agents ... (round 2 of 3)`), a vote by its `cast_vote` tool; a vote belongs to
 * the round whose answers began last before it.
 */

export interface UpstreamCall {
  readonly receivedAt: number;
  readonly firstByteAt?: number;
  readonly endedAt?: number;
  /** The request body as JSON text, to recognise what the call was for. */
  readonly body: string;
}

export interface RoundCalls {
  readonly round: number;
  /** Answer calls by agent index (0 for `Agent 1`). */
  readonly answers: Map<number, UpstreamCall>;
  readonly votes: UpstreamCall[];
}

export interface FightCalls {
  readonly rounds: RoundCalls[];
  /** Calls that were neither an answer nor a vote of the fight (moderation, descriptions...). */
  readonly other: UpstreamCall[];
}

const ANSWER_BRIEF = /You are Agent (\d+), one of \d+ AI agents answering the same message \(round (\d+) of \d+\)/;
const VOTE_TOOL = '"cast_vote"';

export async function forgetCaptured(simulators: readonly string[]): Promise<void> {
  await Promise.all(
    simulators.map((url) => fetch(`${url}/__sim/requests`, { method: 'DELETE' }).then((r) => r.text())),
  );
}

export async function capturedCalls(simulators: readonly string[]): Promise<UpstreamCall[]> {
  const lists = await Promise.all(
    simulators.map(async (url) => {
      const { requests } = (await (await fetch(`${url}/__sim/requests`)).json()) as {
        requests: (Omit<UpstreamCall, 'body'> & { body: unknown })[];
      };
      return requests.map((call) => ({ ...call, body: JSON.stringify(call.body) }));
    }),
  );
  return lists.flat().sort((a, b) => a.receivedAt - b.receivedAt);
}

export function callsByRound(calls: readonly UpstreamCall[], rounds: number): FightCalls {
  const byRound: RoundCalls[] = Array.from({ length: rounds }, (_, i) => ({
    round: i + 1,
    answers: new Map(),
    votes: [],
  }));
  const votes: UpstreamCall[] = [];
  const other: UpstreamCall[] = [];
  for (const call of calls) {
    const brief = ANSWER_BRIEF.exec(call.body);
    if (brief) byRound[Number(brief[2]) - 1]?.answers.set(Number(brief[1]) - 1, call);
    else if (call.body.includes(VOTE_TOOL)) votes.push(call);
    else other.push(call);
  }
  for (const vote of votes) roundOfVote(byRound, vote)?.votes.push(vote);
  return { rounds: byRound, other };
}

function roundOfVote(rounds: readonly RoundCalls[], vote: UpstreamCall): RoundCalls | undefined {
  const started = (round: RoundCalls) => Math.min(...[...round.answers.values()].map((call) => call.receivedAt));
  return [...rounds].reverse().find((round) => started(round) <= vote.receivedAt);
}

/** A call's upstream time: from its arrival at the simulator to its answer's end. */
export const durationMs = (call: UpstreamCall): number => (call.endedAt ?? NaN) - call.receivedAt;

const longest = (calls: Iterable<UpstreamCall>) => Math.max(0, ...[...calls].map(durationMs));
const total = (calls: Iterable<UpstreamCall>) => [...calls].reduce((sum, call) => sum + durationMs(call), 0);

/**
 * The upstream time a round cannot go faster than: brawl agents answer one after another (the
 * sum of their calls), blitz agents at once (the longest); the votes run at once (the longest).
 */
export function roundCriticalPathMs(round: RoundCalls, style: 'brawl' | 'blitz'): number {
  const answering = style === 'brawl' ? total(round.answers.values()) : longest(round.answers.values());
  return answering + longest(round.votes);
}
