import type { LeaderboardBallot } from '../../../lambdas/arena/leaderboard-ballots.js';
import { positionBias } from '../../../lambdas/arena/position-bias.js';
import { syntheticBallots } from './synthetic-ballots.js';

const STRENGTHS = { a: 0.8, b: 0.3, c: 0, d: -0.4, e: -1 };

describe('positionBias', () => {
  test('judges who pick answer A 60% of the time are caught (p < 0.001)', () => {
    // One judge in five picks A outright; the rest choose by strength: A is chosen 0.2 + 0.8 / 2 = 60% of the time.
    const ballots = syntheticBallots({
      strengths: STRENGTHS,
      ballots: 800,
      sizes: [2],
      seed: 'biased',
      pickFirst: 0.2,
    });
    const report = positionBias(ballots);
    const [pairs] = report.sizes;
    expect(pairs!.first.share).toBeGreaterThan(0.56);
    expect(pairs!.first.share).toBeLessThan(0.64);
    expect(pairs!.first.pValue).toBeLessThan(0.001);
    expect(report.overall!.pValue).toBeLessThan(0.001);
  });

  test('the same bias shows at every ballot size, each against its own 1/k', () => {
    const ballots = syntheticBallots({
      strengths: STRENGTHS,
      ballots: 3000,
      sizes: [2, 3, 4],
      seed: 'mixed',
      pickFirst: 0.15,
    });
    const report = positionBias(ballots);
    expect(report.sizes.map((size) => size.answers)).toEqual([2, 3, 4]);
    for (const size of report.sizes) {
      expect(size.expectedShare).toBeCloseTo(1 / size.answers, 12);
      expect(size.first.share).toBeGreaterThan(size.expectedShare);
      expect(size.first.pValue).toBeLessThan(0.001);
      expect(size.chiSquare.degreesOfFreedom).toBe(size.answers - 1);
    }
    expect(report.overall!.degreesOfFreedom).toBe(1 + 2 + 3);
  });

  test('unbiased judges are not flagged: p-values spread as chance spreads them', () => {
    const pValues = Array.from({ length: 40 }, (_, i) => {
      const ballots = syntheticBallots({ strengths: STRENGTHS, ballots: 400, sizes: [2, 3], seed: `fair-${i}` });
      const report = positionBias(ballots);
      return [report.overall!.pValue, ...report.sizes.map((size) => size.first.pValue)];
    });
    const overall = pValues.map((values) => values[0]!);
    // 40 datasets at the 5% level: about 2 flagged by chance, never one at 0.001.
    expect(overall.filter((p) => p < 0.05).length).toBeLessThanOrEqual(5);
    expect(Math.min(...pValues.flat())).toBeGreaterThan(0.001);
    const mean = overall.reduce((sum, p) => sum + p, 0) / overall.length;
    expect(mean).toBeGreaterThan(0.35);
    expect(mean).toBeLessThan(0.65);
  });

  test('counts: by position and size, abstentions and one-answer ballots apart', () => {
    const ballot = (order: string[], choice: number | null): LeaderboardBallot => ({ order, choice, voter: 'j' });
    const report = positionBias([
      ballot(['a', 'b'], 0),
      ballot(['b', 'a'], 0),
      ballot(['a', 'b'], 1),
      ballot(['a', 'b', 'c'], 2),
      ballot(['a', 'b', 'c'], null),
      ballot(['a'], 0),
      ballot(['a', 'a'], 1),
    ]);
    expect(report).toMatchObject({ ballots: 7, votes: 5, abstentions: 1, singleAnswer: 1 });
    expect(report.sizes[0]!.positions).toEqual([
      { position: 0, letter: 'A', votes: 2, share: 0.5 },
      { position: 1, letter: 'B', votes: 2, share: 0.5 },
    ]);
    expect(report.sizes[0]!.chiSquare.statistic).toBe(0);
    expect(report.sizes[1]!.positions.map((p) => p.votes)).toEqual([0, 0, 1]);
    expect(report.sizes[1]!.chiSquare.statistic).toBeCloseTo(2, 12);
    expect(positionBias([ballot(['a', 'b'], null)]).overall).toBeNull();
  });

  test('a malformed ballot is refused, naming it', () => {
    expect(() => positionBias([{ order: ['a', 'b'], choice: 3, voter: 'j' }])).toThrow(
      expect.objectContaining({ kind: 'invalid_request', field: 'ballots[0].choice' }),
    );
  });
});
