import { callsByRound, roundCriticalPathMs, type UpstreamCall } from '../../../bench/arena-upstream.js';

/**
 * The arena benchmark's critical path of upstream time, from captured calls: answers found by
 * the arena's brief and sorted into rounds, votes into the round they followed.
 */

const answer = (agent: number, round: number, receivedAt: number, endedAt: number): UpstreamCall => ({
  receivedAt,
  firstByteAt: receivedAt + 1,
  endedAt,
  body: JSON.stringify({
    messages: [
      {
        role: 'system',
        content: `You are Agent ${agent}, one of 3 AI agents answering the same message (round ${round} of 2). Agent 1 (you):`,
      },
    ],
  }),
});
const vote = (receivedAt: number, endedAt: number): UpstreamCall => ({
  receivedAt,
  endedAt,
  body: JSON.stringify({ tools: [{ function: { name: 'cast_vote' } }] }),
});

const calls = [
  answer(1, 1, 0, 100),
  answer(2, 1, 101, 301),
  answer(3, 1, 302, 352),
  vote(360, 400),
  vote(361, 461),
  answer(1, 2, 470, 500),
  answer(2, 2, 471, 571),
  answer(3, 2, 472, 492),
  vote(580, 590),
  { receivedAt: 1, endedAt: 2, body: '{"input":"moderate me"}' },
];

test('sorts answers by agent and round, votes by the round they follow, and keeps the rest apart', () => {
  const { rounds, other } = callsByRound(calls, 2);
  expect(rounds.map((round) => [...round.answers.keys()].sort())).toEqual([
    [0, 1, 2],
    [0, 1, 2],
  ]);
  expect(rounds.map((round) => round.votes.map((call) => call.receivedAt))).toEqual([[360, 361], [580]]);
  expect(other).toHaveLength(1);
});

test('brawl adds up a round’s answers, blitz takes the longest; both add the longest vote', () => {
  const [first, second] = callsByRound(calls, 2).rounds;
  expect(roundCriticalPathMs(first!, 'brawl')).toBe(100 + 200 + 50 + 100);
  expect(roundCriticalPathMs(first!, 'blitz')).toBe(200 + 100);
  expect(roundCriticalPathMs(second!, 'blitz')).toBe(100 + 10);
});
