import fc from 'fast-check';
import { judgeAgreement } from '../../../lambdas/arena/judge-agreement.js';
import type { LeaderboardBallot } from '../../../lambdas/arena/leaderboard-ballots.js';
import { syntheticBallots } from './synthetic-ballots.js';

const vote = (voter: string, group: string | undefined, order: string[], choice: number | null): LeaderboardBallot => ({
  order,
  choice,
  voter,
  ...(group === undefined ? {} : { group }),
});

/**
 * Agreement counted judge pair by judge pair, as the definition reads: the quadratic way the
 * module avoids, as an independent reference.
 */
function bruteForce(ballots: readonly LeaderboardBallot[]) {
  const firsts = new Map<string, LeaderboardBallot[]>();
  for (const b of ballots) {
    if (b.group === undefined) continue;
    const list = firsts.get(b.group) ?? [];
    if (!list.some((other) => other.voter === b.voter)) list.push(b);
    firsts.set(b.group, list);
  }
  const prefers = (b: LeaderboardBallot, x: string, y: string): string | null => {
    if (b.choice === null || x === y) return null;
    const chosen = b.order[b.choice]!;
    if (chosen === x && b.order.includes(y)) return x;
    if (chosen === y && b.order.includes(x)) return y;
    return null;
  };
  let pairs = 0;
  let agreed = 0;
  for (const list of firsts.values()) {
    const models = [...new Set(list.flatMap((b) => b.order))].sort();
    for (let i = 0; i < list.length; i++)
      for (let j = i + 1; j < list.length; j++)
        for (let m = 0; m < models.length; m++)
          for (let n = m + 1; n < models.length; n++) {
            const a = prefers(list[i]!, models[m]!, models[n]!);
            const b = prefers(list[j]!, models[m]!, models[n]!);
            if (a === null || b === null) continue;
            pairs++;
            if (a === b) agreed++;
          }
  }
  return { pairs, agreed };
}

describe('judgeAgreement', () => {
  test('a round judged by three, counted by hand', () => {
    const report = judgeAgreement([
      vote('x', 'g1', ['a', 'b', 'c'], 0),
      vote('y', 'g1', ['c', 'a', 'b'], 1),
      vote('z', 'g1', ['b', 'c', 'a'], 0),
      vote('x', 'g1', ['a', 'b', 'c'], 1),
      vote('w', undefined, ['a', 'b'], 0),
      vote('w', 'g2', ['a', 'b'], null),
    ]);
    // {a,b}: x and y prefer a, z prefers b: 3 judged pairs, 1 agreeing. {a,c}: x and y prefer a: 1, 1.
    // {b,c}: only z: none.
    expect(report).toMatchObject({ groups: 1, ungrouped: 1, repeated: 1, pairs: 4, agreed: 2, rate: 0.5 });
    expect(report.judges).toEqual([
      { voter: 'x', pairs: 3, agreed: 2, rate: 2 / 3 },
      { voter: 'y', pairs: 3, agreed: 2, rate: 2 / 3 },
      { voter: 'z', pairs: 2, agreed: 0, rate: 0 },
    ]);
  });

  test('matches judge-by-judge counting on random rounds (property)', () => {
    const models = ['a', 'b', 'c', 'd'];
    const ballotArb = fc.record({
      voter: fc.constantFrom('j1', 'j2', 'j3', 'j4'),
      group: fc.option(fc.constantFrom('g1', 'g2', 'g3'), { nil: undefined }),
      order: fc.array(fc.constantFrom(...models), { minLength: 1, maxLength: 4 }),
      pick: fc.option(fc.nat()),
    });
    fc.assert(
      fc.property(fc.array(ballotArb, { maxLength: 30 }), (drawn) => {
        const ballots = drawn.map(({ voter, group, order, pick }) =>
          vote(voter, group, order, pick === null ? null : pick % order.length),
        );
        const report = judgeAgreement(ballots);
        expect({ pairs: report.pairs, agreed: report.agreed }).toEqual(bruteForce(ballots));
        const perJudge = report.judges.reduce((sum, judge) => sum + judge.pairs, 0);
        expect(perJudge).toBe(2 * report.pairs);
      }),
    );
  });

  test('judges who follow strength agree well above chance; judges who pick at random, near it', () => {
    const spec = { ballots: 2400, sizes: [3], groupSize: 4, voters: ['j1', 'j2', 'j3', 'j4'], seed: 'agree' };
    const decisive = judgeAgreement(syntheticBallots({ ...spec, strengths: { a: 3, b: 1.5, c: 0, d: -1.5, e: -3 } }));
    const random = judgeAgreement(syntheticBallots({ ...spec, strengths: { a: 0, b: 0, c: 0, d: 0, e: 0 } }));
    expect(decisive.rate!).toBeGreaterThan(0.8);
    expect(Math.abs(random.rate! - 0.5)).toBeLessThan(0.05);
    expect(random.groups).toBe(600);
  });
});
