import fc from 'fast-check';
import type { Ballot, VoteOutcome } from '../../../lambdas/arena/ballots.js';
import { READ_LIMIT, readVote } from '../../../lambdas/arena/vote-parsing.js';

/** gpt's ballot: three peers, gpt itself absent. */
const ballot: Ballot = {
  voter: 'gpt',
  round: 1,
  entries: [
    { letter: 'A', agent: 'kimi', text: 'a' },
    { letter: 'B', agent: 'claude', text: 'b' },
    { letter: 'C', agent: 'gemini', text: 'c' },
  ],
};

const viaTool = (args: string, content: string | null = null) => ({
  content,
  toolCalls: [{ name: 'cast_vote', arguments: args }],
});
const viaText = (content: string | null) => ({ content, toolCalls: [] });
const vote = (letter: string, reason?: string): VoteOutcome => {
  const agent = ballot.entries.find((e) => e.letter === letter)!.agent;
  return reason === undefined ? { kind: 'vote', agent, letter } : { kind: 'vote', agent, letter, reason };
};
const abstain = (reason: string): VoteOutcome => ({ kind: 'abstain', reason });

describe('readVote', () => {
  test.each<[string, Parameters<typeof readVote>[1], VoteOutcome]>([
    // The forced tool call, as each provider family returns it.
    ['clean tool call', viaTool('{"choice":"B","reason":"Most accurate."}'), vote('B', 'Most accurate.')],
    ['whitespace around arguments', viaTool('\n  {"choice": "A"}  \n'), vote('A')],
    ['lowercase letter', viaTool('{"choice":"c"}'), vote('C')],
    ['"Answer B"', viaTool('{"choice":"Answer B"}'), vote('B')],
    ['"B."', viaTool('{"choice":"B."}'), vote('B')],
    ['"(C)"', viaTool('{"choice":"(C)"}'), vote('C')],
    ['"option: a"', viaTool('{"choice":"option: a"}'), vote('A')],
    ['letter then prose', viaTool('{"choice":"B - the clearest"}'), vote('B')],
    ['arguments as a JSON string', viaTool('"B"'), vote('B')],
    ['arguments cut short by max tokens', viaTool('{"choice": "C", "reason": "It expla'), vote('C')],
    ['empty reason dropped', viaTool('{"choice":"A","reason":"  "}'), vote('A')],
    ['tool call wins over text', viaTool('{"choice":"A"}', 'I vote for B'), vote('A')],
    [
      'the first cast_vote call decides',
      {
        content: null,
        toolCalls: [
          { name: 'web_search', arguments: '{"q":"x"}' },
          { name: 'cast_vote', arguments: '{"choice":"C"}' },
          { name: 'cast_vote', arguments: '{"choice":"A"}' },
        ],
      },
      vote('C'),
    ],
    // Votes that are no use.
    ['the voter own answer is not on the ballot', viaTool('{"choice":"D"}'), abstain('unknown_choice:D')],
    ['a letter far off the ballot', viaTool('{"choice":"Z"}'), abstain('unknown_choice:Z')],
    ['no choice field', viaTool('{"reason":"all good"}'), abstain('missing_choice')],
    ['choice not a string', viaTool('{"choice":2}'), abstain('missing_choice')],
    ['choice unreadable', viaTool('{"choice":"Because it is best"}'), abstain('unreadable_choice')],
    ['garbage arguments', viaTool('<<not json>>'), abstain('malformed_arguments')],
    ['garbage arguments, a vote in the text', viaTool('oops', 'Choice: C'), vote('C')],
    // No tool call: JSON in the text.
    [
      'JSON in a fence',
      viaText('Here is my vote:\n```json\n{"choice": "B", "reason": "clear"}\n```'),
      vote('B', 'clear'),
    ],
    ['bare JSON in prose', viaText('After review: {"choice":"a"} done.'), vote('A')],
    ['JSON that does not parse', viaText('{"choice": "C", reason: clear}'), vote('C')],
    // No tool call: plain prose.
    ['"I vote for B"', viaText('I vote for B.'), vote('B')],
    [
      '"I vote for Answer C"',
      viaText('After comparing them, I vote for Answer C because it cites sources.'),
      vote('C'),
    ],
    ['"Answer C is best"', viaText('Answer C is best: it is accurate.'), vote('C')],
    ['"Answer A is the best"', viaText('Answer A is the best of the three.'), vote('A')],
    ['"Choice: A"', viaText('Choice: A'), vote('A')],
    ['"**Vote:** B"', viaText('**Vote:** B\n\nReason: accurate.'), vote('B')],
    ['"The best answer is C"', viaText('The best answer is C.'), vote('C')],
    ['the same letter named twice', viaText('I pick B. Answer B is the best.'), vote('B')],
    ['two letters named', viaText('I vote for A. Actually, Answer B is better.'), abstain('ambiguous_choice:A,B')],
    [
      'an article, not a letter',
      viaText('I would pick a different framing; all three are fine.'),
      abstain('no_vote_found'),
    ],
    ['a letter mentioned, not picked', viaText('A and B are both fine, C is wrong.'), abstain('no_vote_found')],
    ['a refusal', viaText('I cannot choose between these answers.'), abstain('no_vote_found')],
    ['empty', viaText(''), abstain('no_vote_found')],
    ['null content, no calls', viaText(null), abstain('no_vote_found')],
    ['prose naming the voter own letter', viaText('I vote for D.'), abstain('unknown_choice:D')],
  ])('%s', (_name, answer, expected) => {
    expect(readVote(ballot, answer)).toEqual(expected);
  });

  test('reads only the first 8 KiB of the text', () => {
    expect(readVote(ballot, viaText(`${' '.repeat(READ_LIMIT)}I vote for B.`))).toEqual(abstain('no_vote_found'));
    expect(readVote(ballot, viaText(`${' '.repeat(READ_LIMIT - 20)}I vote for B.`))).toEqual(vote('B'));
  });

  test('reads only the first 8 KiB of the arguments', () => {
    const args = `{"reason":"${'x'.repeat(READ_LIMIT)}","choice":"B"}`;
    expect(readVote(ballot, viaTool(args))).toEqual(abstain('malformed_arguments'));
  });

  test('keeps a short reason only', () => {
    const outcome = readVote(ballot, viaTool(JSON.stringify({ choice: 'A', reason: 'y'.repeat(5000) })));
    expect(outcome.kind === 'vote' && outcome.reason?.length).toBe(500);
  });

  test('any output is a vote for a peer on the ballot or an abstention with a reason (property)', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.constantFrom('I vote for ', 'Choice: ', '{"choice":"', '```json\n', 'Answer ', ' is best', 'B', 'D', '}', '"'),
    );
    const output = fc.array(text, { maxLength: 12 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(output, fc.option(output), (content, args) => {
        const answer = args === null ? viaText(content) : viaTool(args, content);
        const outcome = readVote(ballot, answer);
        if (outcome.kind === 'vote') {
          expect(ballot.entries.map((e) => e.agent)).toContain(outcome.agent);
          expect(outcome.agent).not.toBe(ballot.voter);
        } else expect(outcome.reason).toMatch(/^[a-z_]+(:[A-Za-z,]+)?$/);
      }),
      { numRuns: 500 },
    );
  });

  test('a hostile 1 MB output is read in bounded time', () => {
    const hostile = `I vote for ${'Answer '.repeat(150_000)}{"choice":"${'('.repeat(100_000)}`;
    const started = process.cpuUsage();
    readVote(ballot, viaTool(hostile, hostile));
    // A stall guard, not a speed target: a backtracking blow-up on 1 MB runs for minutes. CPU time
    // of this process, which a busy machine does not inflate the way it does the wall clock.
    expect(cpuMsSince(started)).toBeLessThan(5000);
  });
});

function cpuMsSince(started: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1000;
}
