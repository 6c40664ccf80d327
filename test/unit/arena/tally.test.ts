import fc from 'fast-check';
import {
  emptyLeaderboard,
  sessionWinner,
  tallyRound,
  updateLeaderboard,
  type CastVote,
  type Leaderboard,
  type RoundTally,
} from '../../../lambdas/arena/tally.js';

const AGENTS = ['gpt', 'claude', 'gemini', 'grok', 'deepseek', 'qwen', 'mistral', 'kimi'];

/** One round as a fight produces it: who answered, and each answerer's vote for a peer or abstention. */
const roundOf = (agents: readonly string[]) =>
  fc
    .tuple(
      fc.array(fc.boolean(), { minLength: agents.length, maxLength: agents.length }),
      fc.array(fc.nat(), { minLength: agents.length, maxLength: agents.length }),
      fc.array(fc.boolean(), { minLength: agents.length, maxLength: agents.length }),
    )
    .map(([answeredMask, picks, abstains]) => {
      const answered = agents.filter((_, i) => answeredMask[i]);
      const votes: CastVote[] =
        answered.length < 2
          ? []
          : answered.map((voter, i) => {
              const peers = answered.filter((a) => a !== voter);
              return { voter, votedFor: abstains[i] ? null : peers[picks[i]! % peers.length]! };
            });
      return { answered, votes };
    });

const session = fc.integer({ min: 2, max: 8 }).chain((size) => {
  const agents = AGENTS.slice(0, size);
  return fc.record({
    agents: fc.constant(agents),
    rounds: fc.array(roundOf(agents), { minLength: 1, maxLength: 6 }),
    sessionSeed: fc.string({ maxLength: 8 }),
  });
});

/** Plays every round through tallyRound and updateLeaderboard, as the orchestrator will. */
function play(agents: readonly string[], rounds: { answered: string[]; votes: CastVote[] }[], sessionSeed: string) {
  let leaderboard: Leaderboard = emptyLeaderboard(agents);
  const tallies: RoundTally[] = [];
  const boards: Leaderboard[] = [leaderboard];
  rounds.forEach(({ answered, votes }, i) => {
    const tally = tallyRound({ round: i + 1, agents, answered, votes, previous: leaderboard, sessionSeed });
    tallies.push(tally);
    leaderboard = updateLeaderboard(leaderboard, tally);
    boards.push(leaderboard);
  });
  return { tallies, boards, leaderboard };
}

const scoreOf = (board: Leaderboard, agent: string) => board.find((e) => e.agent === agent)!.score;

describe('tallyRound', () => {
  test('results list the answerers in session order and equal the votes cast (property)', () => {
    fc.assert(
      fc.property(session, ({ agents, rounds, sessionSeed }) => {
        const { tallies } = play(agents, rounds, sessionSeed);
        tallies.forEach((tally, i) => {
          const { answered, votes } = rounds[i]!;
          expect(tally.results.map((r) => r.agent)).toEqual(agents.filter((a) => answered.includes(a)));
          for (const { agent, votes: count } of tally.results)
            expect(count).toBe(votes.filter((v) => v.votedFor === agent).length);
          const total = tally.results.reduce((sum, r) => sum + r.votes, 0);
          expect(total).toBe(votes.filter((v) => v.votedFor !== null).length);
        });
      }),
    );
  });

  test('the winner has the most votes; ties go to the higher earlier score, then a seeded draw (property)', () => {
    fc.assert(
      fc.property(session, ({ agents, rounds, sessionSeed }) => {
        const { tallies, boards } = play(agents, rounds, sessionSeed);
        tallies.forEach((tally, i) => {
          if (tally.results.length === 0) return expect(tally.winner).toBeNull();
          const most = Math.max(...tally.results.map((r) => r.votes));
          const tied = tally.results.filter((r) => r.votes === most).map((r) => r.agent);
          expect(tied).toContain(tally.winner);
          if (tied.length === 1) return expect(tally.tieBreak).toBeUndefined();
          const before = boards[i]!;
          const bestEarlier = Math.max(...tied.map((a) => scoreOf(before, a)));
          expect(scoreOf(before, tally.winner!)).toBe(bestEarlier);
          const stillTied = tied.filter((a) => scoreOf(before, a) === bestEarlier);
          expect(tally.tieBreak).toBe(stillTied.length === 1 ? 'earlier_score' : 'draw');
        });
      }),
    );
  });

  test('a replay gives the same tallies, leaderboards and winner (property)', () => {
    fc.assert(
      fc.property(session, ({ agents, rounds, sessionSeed }) => {
        const first = play(agents, rounds, sessionSeed);
        const again = play(agents, rounds, sessionSeed);
        expect(again).toEqual(first);
        expect(sessionWinner(again.leaderboard, sessionSeed)).toBe(sessionWinner(first.leaderboard, sessionSeed));
      }),
    );
  });

  const base = { round: 1, agents: ['a', 'b', 'c'], previous: emptyLeaderboard(['a', 'b', 'c']), sessionSeed: 's' };

  test('nobody answered: no winner', () => {
    expect(tallyRound({ ...base, answered: [], votes: [] })).toEqual({ round: 1, results: [], winner: null });
  });

  test('one answer: it wins without a vote or a tie break', () => {
    expect(tallyRound({ ...base, answered: ['b'], votes: [] })).toEqual({
      round: 1,
      results: [{ agent: 'b', votes: 0 }],
      winner: 'b',
    });
  });

  test('votes that cannot happen by construction are ignored', () => {
    const tally = tallyRound({
      ...base,
      answered: ['a', 'b'],
      votes: [
        { voter: 'a', votedFor: 'a' }, // for itself
        { voter: 'b', votedFor: 'c' }, // for an agent that did not answer
        { voter: 'c', votedFor: 'b' }, // counted
        { voter: 'c', votedFor: 'a' }, // a second vote by the same voter
        { voter: 'zed', votedFor: 'a' }, // a voter outside the session
      ],
    });
    expect(tally.results).toEqual([
      { agent: 'a', votes: 0 },
      { agent: 'b', votes: 1 },
    ]);
    expect(tally.winner).toBe('b');
  });

  test('a tie goes to the higher earlier score', () => {
    const previous = updateLeaderboard(base.previous, {
      round: 1,
      results: [
        { agent: 'a', votes: 0 },
        { agent: 'b', votes: 0 },
        { agent: 'c', votes: 2 },
      ],
      winner: 'c',
    });
    const tally = tallyRound({
      ...base,
      round: 2,
      previous,
      answered: ['a', 'b', 'c'],
      votes: [
        { voter: 'a', votedFor: 'c' },
        { voter: 'c', votedFor: 'a' },
        { voter: 'b', votedFor: null },
      ],
    });
    expect(tally.winner).toBe('c');
    expect(tally.tieBreak).toBe('earlier_score');
  });

  test('a full tie is a seeded draw: fixed per seed, and each tied agent can win', () => {
    const winners = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const input = { ...base, sessionSeed: `seed-${i}`, answered: ['a', 'b', 'c'], votes: [] };
      const tally = tallyRound(input);
      expect(tally.tieBreak).toBe('draw');
      expect(tallyRound(input).winner).toBe(tally.winner);
      winners.add(tally.winner!);
    }
    expect([...winners].sort()).toEqual(['a', 'b', 'c']);
  });
});

describe('leaderboard', () => {
  test('scores are the cumulative votes and roundsWon the rounds won (property)', () => {
    fc.assert(
      fc.property(session, ({ agents, rounds, sessionSeed }) => {
        const { tallies, boards } = play(agents, rounds, sessionSeed);
        boards.forEach((board, upTo) => {
          expect(board.map((e) => e.agent).sort()).toEqual([...agents].sort());
          for (const entry of board) {
            const played = tallies.slice(0, upTo);
            const votes = played.flatMap((t) => t.results).filter((r) => r.agent === entry.agent);
            expect(entry.score).toBe(votes.reduce((sum, r) => sum + r.votes, 0));
            expect(entry.roundsWon).toBe(played.filter((t) => t.winner === entry.agent).length);
          }
        });
      }),
    );
  });

  test('sorted by score, rounds won, session order; ranked 1, 1, 3 by score only (property)', () => {
    fc.assert(
      fc.property(session, ({ agents, rounds, sessionSeed }) => {
        const { leaderboard } = play(agents, rounds, sessionSeed);
        const key = (e: Leaderboard[number]) => [-e.score, -e.roundsWon, agents.indexOf(e.agent)];
        for (let i = 1; i < leaderboard.length; i++) {
          const [p, q] = [key(leaderboard[i - 1]!), key(leaderboard[i]!)];
          const firstDifference = p.findIndex((v, k) => v !== q[k]);
          expect(p[firstDifference]!).toBeLessThan(q[firstDifference]!);
        }
        for (const entry of leaderboard)
          expect(entry.rank).toBe(1 + leaderboard.filter((other) => other.score > entry.score).length);
      }),
    );
  });

  test('an empty leaderboard is in session order, everyone ranked 1', () => {
    expect(
      emptyLeaderboard(['x', 'y']).map(({ agent, score, rank, roundsWon }) => ({ agent, score, rank, roundsWon })),
    ).toEqual([
      { agent: 'x', score: 0, rank: 1, roundsWon: 0 },
      { agent: 'y', score: 0, rank: 1, roundsWon: 0 },
    ]);
  });

  test('equal scores keep session order even after the order changed', () => {
    const agents = ['a', 'b'];
    const round = (votes: [number, number], winner: string): RoundTally => ({
      round: 1,
      results: [
        { agent: 'a', votes: votes[0] },
        { agent: 'b', votes: votes[1] },
      ],
      winner,
    });
    const afterOne = updateLeaderboard(emptyLeaderboard(agents), round([0, 1], 'b'));
    expect(afterOne.map((e) => e.agent)).toEqual(['b', 'a']);
    const afterTwo = updateLeaderboard(afterOne, round([1, 0], 'a'));
    expect(afterTwo.map((e) => [e.agent, e.score, e.roundsWon, e.rank])).toEqual([
      ['a', 1, 1, 1],
      ['b', 1, 1, 1],
    ]);
  });
});

describe('sessionWinner', () => {
  const board = (entries: [string, number, number][]): Leaderboard =>
    entries.map(([agent, score, roundsWon], seat) => ({ agent, score, roundsWon, seat, rank: 0 }));

  test('the highest score wins', () => {
    expect(
      sessionWinner(
        board([
          ['a', 1, 2],
          ['b', 3, 0],
          ['c', 2, 1],
        ]),
        's',
      ),
    ).toBe('b');
  });

  test('tied on score: more rounds won', () => {
    expect(
      sessionWinner(
        board([
          ['a', 3, 1],
          ['b', 3, 2],
        ]),
        's',
      ),
    ).toBe('b');
  });

  test('tied on both: a seeded draw among the tied, the same on replay', () => {
    const winners = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const tied = board([
        ['a', 2, 1],
        ['b', 2, 1],
        ['c', 1, 1],
      ]);
      const winner = sessionWinner(tied, `final-${i}`);
      expect(sessionWinner(tied, `final-${i}`)).toBe(winner);
      winners.add(winner!);
    }
    expect([...winners].sort()).toEqual(['a', 'b']);
  });

  test('nobody ever answered: no winner', () => {
    expect(
      sessionWinner(
        board([
          ['a', 0, 0],
          ['b', 0, 0],
        ]),
        's',
      ),
    ).toBeNull();
    expect(sessionWinner([], 's')).toBeNull();
  });

  test('every session where someone answered has a winner with the top score (property)', () => {
    fc.assert(
      fc.property(session, ({ agents, rounds, sessionSeed }) => {
        const { leaderboard, tallies } = play(agents, rounds, sessionSeed);
        const winner = sessionWinner(leaderboard, sessionSeed);
        if (tallies.every((t) => t.results.length === 0)) return expect(winner).toBeNull();
        expect(scoreOf(leaderboard, winner!)).toBe(Math.max(...leaderboard.map((e) => e.score)));
      }),
    );
  });
});
