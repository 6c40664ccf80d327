/**
 * Tallies, round winners, the leaderboard and the session winner. A fight's result follows from
 * its votes exactly, so everything here is pure and deterministic (issue 9, section 4).
 *
 * Counting: each vote counts once for the agent voted for. Abstentions count for nobody. Votes
 * that cannot happen by construction are ignored, defensively: a vote for an agent that did not
 * answer this round, a vote for oneself, a voter outside the session, and any vote after a
 * voter's first.
 *
 * Round winner (the tie rule):
 * 1. nobody answered: no winner; exactly one answered (no vote happens): that agent, no tie break;
 * 2. otherwise the answered agent with the most votes;
 * 3. tied on votes: the tied agent with the higher cumulative score before this round
 *    (`tieBreak: 'earlier_score'`); earlier rounds' judgement outweighs a coin;
 * 4. still tied: a seeded draw (`seededRandom('<sessionSeed>:tie:<round>')`) over the agents still
 *    tied, in session order (`tieBreak: 'draw'`), so a replay draws the same winner.
 *
 * Leaderboard: score = cumulative votes received; roundsWon = rounds won. Sorted by score, then
 * rounds won (both descending), then session order. Rank is competition ranking by score only
 * (1, 1, 3): agents level on votes share a rank even when rounds won orders them.
 *
 * Session winner: the highest score; tied, the most rounds won; still tied, a seeded draw
 * (`<sessionSeed>:final`) in session order. No winner when no agent ever won a round, which is
 * exactly when nobody ever answered (every round with an answer has a winner).
 */

import { randomIndex, seededRandom } from './seeded-random.js';

export interface CastVote {
  readonly voter: string;
  /** The agent voted for; null for an abstention. */
  readonly votedFor: string | null;
  readonly reason?: string;
}

export interface RoundTally {
  round: number;
  /** Every agent that answered this round, in session order. */
  results: { agent: string; votes: number }[];
  winner: string | null;
  tieBreak?: 'earlier_score' | 'draw';
}

export interface LeaderboardEntry {
  readonly agent: string;
  readonly score: number;
  readonly rank: number;
  readonly roundsWon: number;
  /** The agent's position in the session's agent order: the last sort key. */
  readonly seat: number;
}

export type Leaderboard = readonly LeaderboardEntry[];

export interface TallyInput {
  readonly round: number;
  /** The session's agents, in session order. */
  readonly agents: readonly string[];
  readonly answered: readonly string[];
  readonly votes: readonly CastVote[];
  readonly previous: Leaderboard;
  readonly sessionSeed: string;
}

export function tallyRound(input: TallyInput): RoundTally {
  const answered = new Set(input.answered);
  const results = input.agents.filter((agent) => answered.has(agent)).map((agent) => ({ agent, votes: 0 }));
  const counts = new Map(results.map((result) => [result.agent, result]));
  for (const vote of countedVotes(input)) counts.get(vote)!.votes++;
  return { round: input.round, results, ...roundWinner(input, results) };
}

/** The agent each counted vote goes to (see the header for what is not counted). */
function countedVotes(input: TallyInput): string[] {
  const answered = new Set(input.answered);
  const agents = new Set(input.agents);
  const voted = new Set<string>();
  const counted: string[] = [];
  for (const { voter, votedFor } of input.votes) {
    if (!agents.has(voter) || voted.has(voter)) continue;
    voted.add(voter);
    if (votedFor !== null && votedFor !== voter && answered.has(votedFor) && agents.has(votedFor))
      counted.push(votedFor);
  }
  return counted;
}

function roundWinner(input: TallyInput, results: RoundTally['results']): Pick<RoundTally, 'winner' | 'tieBreak'> {
  if (results.length === 0) return { winner: null };
  const mostVotes = highest(results, (result) => result.votes);
  if (mostVotes.length === 1) return { winner: mostVotes[0]!.agent };
  const scores = new Map(input.previous.map((entry) => [entry.agent, entry.score]));
  const bestEarlier = highest(mostVotes, (result) => scores.get(result.agent) ?? 0);
  if (bestEarlier.length === 1) return { winner: bestEarlier[0]!.agent, tieBreak: 'earlier_score' };
  const drawn = draw(
    bestEarlier.map((result) => result.agent),
    `${input.sessionSeed}:tie:${input.round}`,
  );
  return { winner: drawn, tieBreak: 'draw' };
}

/** The items sharing the highest key, in their given order. */
function highest<T>(items: readonly T[], key: (item: T) => number): T[] {
  const top = Math.max(...items.map(key));
  return items.filter((item) => key(item) === top);
}

/** One of `candidates` (already in session order), drawn from `seed`. */
function draw(candidates: readonly string[], seed: string): string {
  return candidates[randomIndex(candidates.length, seededRandom(seed))]!;
}

export function emptyLeaderboard(agents: readonly string[]): Leaderboard {
  return ranked(agents.map((agent, seat) => ({ agent, score: 0, rank: 1, roundsWon: 0, seat })));
}

/** `previous` with `tally`'s votes and round win added. */
export function updateLeaderboard(previous: Leaderboard, tally: RoundTally): Leaderboard {
  const votes = new Map(tally.results.map((result) => [result.agent, result.votes]));
  return ranked(
    previous.map((entry) => ({
      ...entry,
      score: entry.score + (votes.get(entry.agent) ?? 0),
      roundsWon: entry.roundsWon + (entry.agent === tally.winner ? 1 : 0),
    })),
  );
}

function ranked(entries: readonly LeaderboardEntry[]): Leaderboard {
  const sorted = [...entries].sort((a, b) => b.score - a.score || b.roundsWon - a.roundsWon || a.seat - b.seat);
  return sorted.map((entry) => ({ ...entry, rank: 1 + sorted.filter((other) => other.score > entry.score).length }));
}

export function sessionWinner(leaderboard: Leaderboard, sessionSeed: string): string | null {
  if (leaderboard.every((entry) => entry.roundsWon === 0)) return null;
  const bestScore = highest(leaderboard, (entry) => entry.score);
  const mostWins = highest(bestScore, (entry) => entry.roundsWon);
  if (mostWins.length === 1) return mostWins[0]!.agent;
  const inSessionOrder = [...mostWins].sort((a, b) => a.seat - b.seat);
  return draw(
    inSessionOrder.map((entry) => entry.agent),
    `${sessionSeed}:final`,
  );
}
