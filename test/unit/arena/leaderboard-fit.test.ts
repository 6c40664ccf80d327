import fc from 'fast-check';
import type { LeaderboardBallot } from '../../../lambdas/arena/leaderboard-ballots.js';
import {
  completeLeaderboardFit,
  fitLeaderboard,
  prepareLeaderboardFit,
  resampleLeaderboard,
  type LeaderboardFit,
} from '../../../lambdas/arena/leaderboard-fit.js';
import { syntheticBallots } from './synthetic-ballots.js';

/** Rating points per log-odds unit, as the spec states the scale: 400 points are tenfold odds. */
const K = 400 / Math.log(10);

const ballot = (order: string[], choice: number | null, style?: LeaderboardBallot['style']): LeaderboardBallot => ({
  order,
  choice,
  voter: 'judge',
  ...(style ? { style } : {}),
});

/** Outcomes counted by hand below: 16 ballots, one abstention, one with no other model. */
const FIXED: LeaderboardBallot[] = [
  ballot(['a', 'b'], 0),
  ballot(['b', 'a'], 0),
  ballot(['a', 'c'], 1),
  ballot(['c', 'b', 'd'], 0),
  ballot(['d', 'a', 'b'], 2),
  ballot(['a', 'd'], 0),
  ballot(['b', 'd'], 1),
  ballot(['c', 'd'], 0),
  ballot(['a', 'b', 'c'], 0),
  ballot(['c', 'a'], null),
  ballot(['d', 'c'], 0),
  ballot(['b', 'c'], 0),
  ballot(['a', 'a', 'c'], 2),
  ballot(['d', 'd'], 0),
  ballot(['a', 'b', 'a'], 0),
  ballot(['d', 'a'], 0),
];

const rowOf = (fit: LeaderboardFit, model: string) => fit.models.find((row) => row.model === model)!;

/** The comparisons as the test reads the spec: the choice beats every other answer of another model. */
function comparisonsOf(ballots: readonly LeaderboardBallot[]) {
  const out: { winner: string; loser: string; w: number; l: number; ballot: LeaderboardBallot }[] = [];
  for (const b of ballots) {
    if (b.choice === null) continue;
    b.order.forEach((loser, l) => {
      if (loser !== b.order[b.choice!]) out.push({ winner: b.order[b.choice!]!, loser, w: b.choice!, l, ballot: b });
    });
  }
  return out;
}

/**
 * The unpenalised maximum-likelihood strengths by Zermelo's iteration (the MM algorithm of Hunter
 * 2004): gamma_i <- wins_i / sum_j n_ij / (gamma_i + gamma_j). A second solver sharing nothing
 * with the one under test; it needs every model to have won and lost.
 */
function zermelo(ballots: readonly LeaderboardBallot[]): Map<string, number> {
  const comparisons = comparisonsOf(ballots);
  const models = [...new Set(comparisons.flatMap((c) => [c.winner, c.loser]))];
  const wins = new Map(models.map((m) => [m, 0]));
  const games = new Map<string, number>();
  const key = (a: string, b: string) => (a < b ? `${a}|${b}` : `${b}|${a}`);
  for (const c of comparisons) {
    wins.set(c.winner, wins.get(c.winner)! + 1);
    games.set(key(c.winner, c.loser), (games.get(key(c.winner, c.loser)) ?? 0) + 1);
  }
  let gamma = new Map(models.map((m) => [m, 1]));
  for (let iteration = 0; iteration < 100_000; iteration++) {
    const next = new Map<string, number>();
    for (const i of models) {
      let denominator = 0;
      for (const j of models) if (j !== i) denominator += (games.get(key(i, j)) ?? 0) / (gamma.get(i)! + gamma.get(j)!);
      next.set(i, wins.get(i)! / denominator);
    }
    const logMean = models.reduce((sum, m) => sum + Math.log(next.get(m)!), 0) / models.length;
    const change = Math.max(...models.map((m) => Math.abs(Math.log(next.get(m)!) - logMean - Math.log(gamma.get(m)!))));
    gamma = new Map(models.map((m) => [m, Math.exp(Math.log(next.get(m)!) - logMean)]));
    if (change < 1e-14) break;
  }
  return new Map(models.map((m) => [m, Math.log(gamma.get(m)!)]));
}

describe('fitLeaderboard: the answer', () => {
  test('fixed outcomes: counts as counted by hand, ratings as an independent solver finds them', () => {
    const fit = fitLeaderboard(FIXED, { seed: 'fixed', resamples: 50, ridge: 1e-10 });
    const counts = Object.fromEntries(fit.models.map((row) => [row.model, [row.wins, row.losses, row.battles]]));
    expect(counts).toEqual({ a: [5, 6, 11], b: [4, 5, 9], c: [6, 3, 9], d: [3, 4, 7] });
    expect(fit).toMatchObject({ ballots: 16, contributing: 14, comparisons: 18, components: 1 });
    expect(fit.skipped).toEqual({ abstentions: 1, noComparison: 1, noStyle: 0 });
    const reference = zermelo(FIXED);
    for (const [model, theta] of reference) expect(rowOf(fit, model).rating).toBeCloseTo(1000 + K * theta, 6);
    const ratings = fit.models.map((row) => row.rating);
    expect(ratings).toEqual([...ratings].sort((x, y) => y - x));
    // Resamples of 14 ballots often leave a model unbeaten: the default ridge still answers each in few steps.
    const { work } = fitLeaderboard(FIXED, { seed: 'fixed', resamples: 1000 });
    expect(work.unconverged).toBe(0);
    expect(work.iterations).toBeLessThan(1001 * 10);
  });

  test('the scale: tenfold odds are 400 points, measured from the mean or from a named anchor', () => {
    const ballots = [...Array.from({ length: 10 }, () => ballot(['a', 'b'], 0)), ballot(['a', 'b'], 1)];
    const byMean = fitLeaderboard(ballots, { seed: 's', resamples: 20, ridge: 1e-10 });
    expect(rowOf(byMean, 'a').rating).toBeCloseTo(1200, 6);
    expect(rowOf(byMean, 'b').rating).toBeCloseTo(800, 6);
    expect(byMean.baseline).toMatchObject({ kind: 'mean', rating: 1000 });
    const anchored = fitLeaderboard(ballots, { seed: 's', resamples: 20, ridge: 1e-10, anchor: 'b' });
    expect(rowOf(anchored, 'a').rating).toBeCloseTo(1400, 6);
    expect(rowOf(anchored, 'b')).toMatchObject({ rating: 1000, interval: [1000, 1000] });
    expect(anchored.baseline).toMatchObject({ kind: 'model', model: 'b', rating: 1000 });
    const missing = fitLeaderboard(ballots, { seed: 's', resamples: 20, anchor: 'nobody' });
    expect(missing.baseline.kind).toBe('mean');
    expect(missing.baseline.description).toContain('nobody');
  });

  test('style control: the answer is where the penalised likelihood, computed here, is flat', () => {
    const ballots = syntheticBallots({
      strengths: { a: 0.5, b: 0, c: -0.4 },
      ballots: 120,
      sizes: [2, 3],
      seed: 'style-gradient',
      lengths: { a: [100, 900], b: [50, 600], c: [200, 400] },
      lengthEffect: 1,
    });
    const ridge = 0.01;
    const fit = fitLeaderboard(ballots, { seed: 's', resamples: 10, ridge, styleControl: true });
    const theta = new Map(fit.models.map((row) => [row.model, (row.rating - 1000) / K]));
    const beta = fit.style!.map((effect) => effect.coefficient);
    // The covariates as the spec defines them: (winner - loser) / (winner + loser), over its root mean square.
    const comparisons = comparisonsOf(ballots).map((c) => {
      const d = [c.ballot.style!.tokens, c.ballot.style!.markdown].map((v) =>
        v[c.w]! + v[c.l]! === 0 ? 0 : (v[c.w]! - v[c.l]!) / (v[c.w]! + v[c.l]!),
      );
      return { ...c, d };
    });
    const rms = [0, 1].map((f) => Math.sqrt(comparisons.reduce((s, c) => s + c.d[f]! ** 2, 0) / comparisons.length));
    expect(fit.style!.map((effect) => effect.rms)).toEqual(rms.map((r) => expect.closeTo(r, 12)));
    const gTheta = new Map([...theta.keys()].map((m) => [m, -ridge * theta.get(m)!]));
    const gBeta = beta.map((b) => -ridge * b);
    for (const c of comparisons) {
      const x = c.d.map((d, f) => d / rms[f]!);
      const z = theta.get(c.winner)! - theta.get(c.loser)! + beta[0]! * x[0]! + beta[1]! * x[1]!;
      const q = 1 / (1 + Math.exp(z));
      gTheta.set(c.winner, gTheta.get(c.winner)! + q);
      gTheta.set(c.loser, gTheta.get(c.loser)! - q);
      x.forEach((xf, f) => (gBeta[f]! += q * xf));
    }
    for (const g of [...gTheta.values(), ...gBeta]) expect(Math.abs(g)).toBeLessThan(1e-7);
    expect(beta[0]!).toBeGreaterThan(0);
  });

  test('style control shrinks a gap that only answer length made', () => {
    // Equal models; judges prefer the longer answer, and model v writes longer answers than t.
    const ballots = syntheticBallots({
      strengths: { v: 0, t: 0, m: 0 },
      ballots: 3000,
      sizes: [2],
      seed: 'verbosity',
      lengths: { v: [400, 1400], t: [80, 500], m: [150, 900] },
      lengthEffect: 1.5,
    });
    const plain = fitLeaderboard(ballots, { seed: 's', resamples: 200 });
    const controlled = fitLeaderboard(ballots, { seed: 's', resamples: 200, styleControl: true });
    const gap = (fit: LeaderboardFit) => rowOf(fit, 'v').rating - rowOf(fit, 't').rating;
    expect(rowOf(plain, 't').interval[1]).toBeLessThan(rowOf(plain, 'v').interval[0]);
    expect(gap(plain)).toBeGreaterThan(100);
    expect(Math.abs(gap(controlled))).toBeLessThan(gap(plain) / 4);
    for (const row of controlled.models) {
      expect(row.interval[0]).toBeLessThan(1000);
      expect(row.interval[1]).toBeGreaterThan(1000);
    }
    const length = controlled.style!.find((effect) => effect.feature === 'length')!;
    expect(length.interval[0]).toBeGreaterThan(0);
    // Per raw unit of (own - other) / (own + other), the coefficient is the simulated 1.5.
    expect(length.coefficient / length.rms).toBeGreaterThan(1.2);
    expect(length.coefficient / length.rms).toBeLessThan(1.8);
    expect(plain.style).toBeNull();
  });
});

describe('fitLeaderboard: intervals', () => {
  test('across 50 simulated datasets the order is recovered and the 95% intervals cover the truth', () => {
    const strengths = { p: -0.9, q: -0.35, r: 0, s: 0.4, t: 1 };
    const mean = Object.values(strengths).reduce((a, b) => a + b, 0) / 5;
    let covered = 0;
    let intervals = 0;
    let ordered = 0;
    for (let replicate = 0; replicate < 50; replicate++) {
      const ballots = syntheticBallots({ strengths, ballots: 300, sizes: [2, 3], seed: `coverage-${replicate}` });
      const fit = fitLeaderboard(ballots, { seed: `boot-${replicate}`, resamples: 1000 });
      if (fit.models.map((row) => row.model).join('') === 'tsrqp') ordered++;
      for (const row of fit.models) {
        const truth = 1000 + K * (strengths[row.model as keyof typeof strengths] - mean);
        intervals++;
        if (row.interval[0] <= truth && truth <= row.interval[1]) covered++;
      }
    }
    expect(intervals).toBe(250);
    // Nominal 95%: 237 of 250 on average; a percentile bootstrap runs a little under.
    expect(covered).toBeGreaterThanOrEqual(225);
    expect(covered).toBeLessThan(250);
    expect(ordered).toBeGreaterThanOrEqual(35);
  });

  test('intervals contain the rating and narrow as ballots grow', () => {
    const strengths = { a: 0.3, b: 0, c: -0.3 };
    const width = (n: number) => {
      const fit = fitLeaderboard(syntheticBallots({ strengths, ballots: n, sizes: [2], seed: 'narrow' }), {
        seed: 's',
        resamples: 300,
      });
      for (const row of fit.models) {
        expect(row.interval[0]).toBeLessThanOrEqual(row.rating);
        expect(row.rating).toBeLessThanOrEqual(row.interval[1]);
      }
      return rowOf(fit, 'a').interval[1] - rowOf(fit, 'a').interval[0];
    };
    const small = width(200);
    const large = width(3200);
    // Widths shrink as 1 / sqrt(n): sixteen times the ballots, a quarter of the width.
    expect(large / small).toBeGreaterThan(0.15);
    expect(large / small).toBeLessThan(0.4);
  });

  test('the same ballots and seed give the same answer, in any order and in any chunks', () => {
    const ballots = syntheticBallots({
      strengths: { a: 0.2, b: 0, c: -0.5, d: 0.1 },
      ballots: 200,
      sizes: [2, 3, 4],
      seed: 'chunks',
      abstain: 0.1,
    });
    const options = { seed: 'chunk-seed', resamples: 60, styleControl: true };
    const whole = fitLeaderboard(ballots, options);
    expect(fitLeaderboard([...ballots].reverse(), options)).toEqual(whole);
    const prepared = prepareLeaderboardFit(ballots, options);
    const replicates = [
      ...resampleLeaderboard(prepared, 0, 7),
      ...resampleLeaderboard(prepareLeaderboardFit(ballots, options), 7, 40),
      ...resampleLeaderboard(prepared, 47, 13),
    ];
    expect(JSON.parse(JSON.stringify(replicates))).toEqual(replicates);
    expect(completeLeaderboardFit(prepared, replicates)).toEqual(whole);
    const reseeded = fitLeaderboard(ballots, { ...options, seed: 'another' });
    expect(reseeded.models.map((row) => row.rating)).toEqual(whole.models.map((row) => row.rating));
    expect(reseeded.models.map((row) => row.interval)).not.toEqual(whole.models.map((row) => row.interval));
  });

  test('the cost estimate reflects a win matrix without style and a row per comparison with it', () => {
    const ballots = syntheticBallots({ strengths: { a: 0, b: 0, c: 0 }, ballots: 500, sizes: [2, 3], seed: 'cost' });
    const plain = prepareLeaderboardFit(ballots, { seed: 's' });
    expect(plain.cost).toMatchObject({ contributing: 500, rows: 6, parameters: 3 });
    expect(plain.cost.operationsPerResample).toBeGreaterThan(500);
    const styled = prepareLeaderboardFit(ballots, { seed: 's', styleControl: true });
    expect(styled.cost.parameters).toBe(4); // every length is 100: only markdown varies
    expect(styled.cost.rows).toBeGreaterThan(6);
    expect(styled.cost.operationsPerResample).toBeGreaterThan(plain.cost.operationsPerResample);
  });
});

describe('fitLeaderboard: properties', () => {
  const pairwise = fc.array(
    fc.record({
      pair: fc.constantFrom<[string, string]>(['a', 'b'], ['b', 'c'], ['a', 'c'], ['c', 'd'], ['a', 'd']),
      choice: fc.option(fc.integer({ min: 0, max: 1 })),
    }),
    { minLength: 1, maxLength: 40 },
  );

  test('swapping every outcome mirrors the ratings about 1000', () => {
    fc.assert(
      fc.property(pairwise, (votes) => {
        const ballots = votes.map(({ pair, choice }) => ballot(pair, choice));
        const swapped = votes.map(({ pair, choice }) => ballot(pair, choice === null ? null : 1 - choice));
        const fit = fitLeaderboard(ballots, { seed: 's', resamples: 1 });
        const mirror = fitLeaderboard(swapped, { seed: 's', resamples: 1 });
        for (const row of fit.models) {
          expect(Number.isFinite(row.rating)).toBe(true);
          expect(rowOf(mirror, row.model).rating - 1000).toBeCloseTo(1000 - row.rating, 6);
          expect(rowOf(mirror, row.model).wins).toBe(row.losses);
        }
        if (fit.models.length > 0) {
          const mean = fit.models.reduce((sum, row) => sum + row.rating, 0) / fit.models.length;
          expect(mean).toBeCloseTo(1000, 6);
        }
      }),
      { numRuns: 60 },
    );
  });

  test('renaming the models renames the rows and changes no rating', () => {
    const names = ['a', 'b', 'c', 'd'];
    fc.assert(
      fc.property(pairwise, fc.shuffledSubarray(['w', 'x', 'y', 'z'], { minLength: 4, maxLength: 4 }), (votes, to) => {
        const rename = new Map(names.map((name, i) => [name, to[i]!]));
        const ballots = votes.map(({ pair, choice }) => ballot(pair, choice));
        const renamed = votes.map(({ pair, choice }) => ballot([rename.get(pair[0])!, rename.get(pair[1])!], choice));
        const fit = fitLeaderboard(ballots, { seed: 's', resamples: 1 });
        const other = fitLeaderboard(renamed, { seed: 's', resamples: 1 });
        expect(other.models.map((row) => row.model).sort()).toEqual(
          fit.models.map((row) => rename.get(row.model)).sort(),
        );
        for (const row of fit.models) {
          const twin = rowOf(other, rename.get(row.model)!);
          expect(twin.rating).toBeCloseTo(row.rating, 6);
          expect([twin.wins, twin.losses]).toEqual([row.wins, row.losses]);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('fitLeaderboard: degenerate and adversarial input', () => {
  test('all abstentions, or one model only: an empty board, no failure', () => {
    const abstained = fitLeaderboard([ballot(['a', 'b'], null), ballot(['b', 'c', 'a'], null)], {
      seed: 's',
      resamples: 5,
    });
    expect(abstained).toMatchObject({ models: [], comparisons: 0, contributing: 0, components: 0 });
    expect(abstained.skipped.abstentions).toBe(2);
    const alone = fitLeaderboard([ballot(['x', 'x'], 0), ballot(['x'], 0)], {
      seed: 's',
      resamples: 5,
      styleControl: true,
    });
    expect(alone.models).toEqual([]);
    expect(alone.skipped).toEqual({ abstentions: 0, noComparison: 0, noStyle: 2 });
    expect(alone.style!.every((effect) => effect.coefficient === 0 && effect.rms === 0)).toBe(true);
    expect(fitLeaderboard([], { seed: 's', resamples: 5 }).models).toEqual([]);
  });

  test('a model that always wins, and one that always loses, stay finite and in their places', () => {
    const ballots = syntheticBallots({
      strengths: { a: 0.2, b: 0, c: -0.2 },
      ballots: 300,
      sizes: [2, 3],
      seed: 'champ',
    });
    const withChamp = [
      ...ballots,
      ...Array.from({ length: 40 }, (_, i) =>
        ballot(i % 2 ? ['champ', 'a', 'dud'] : ['b', 'dud', 'champ'], i % 2 ? 0 : 2),
      ),
    ];
    const fit = fitLeaderboard(withChamp, { seed: 's', resamples: 200 });
    for (const row of fit.models) expect([row.rating, ...row.interval].every(Number.isFinite)).toBe(true);
    expect(fit.models[0]!.model).toBe('champ');
    expect(fit.models.at(-1)!.model).toBe('dud');
    expect(rowOf(fit, 'champ')).toMatchObject({ wins: 80, losses: 0 });
    expect(fit.work.unconverged).toBe(0);
  });

  test('models that never met each other: counted as separate components, still finite', () => {
    const fit = fitLeaderboard([ballot(['a', 'b'], 0), ballot(['b', 'a'], 0), ballot(['c', 'd'], 1)], {
      seed: 's',
      resamples: 20,
    });
    expect(fit.components).toBe(2);
    for (const row of fit.models) expect(Number.isFinite(row.rating)).toBe(true);
  });

  test('duplicate models on a ballot: no self-comparison, and a model shown twice loses twice', () => {
    const fit = fitLeaderboard([ballot(['a', 'a', 'b'], 0), ballot(['a', 'b', 'a'], 1)], { seed: 's', resamples: 5 });
    expect(rowOf(fit, 'a')).toMatchObject({ wins: 1, losses: 2 });
    expect(rowOf(fit, 'b')).toMatchObject({ wins: 2, losses: 1 });
  });

  test('input at the caps is fitted; one more ballot or model is refused, naming the field', () => {
    const limits = { maxBallots: 50, maxModels: 5, maxAnswers: 5 };
    const atCaps = Array.from({ length: 50 }, (_, i) =>
      ballot(['m0', 'm1', 'm2', 'm3', 'm4'].slice(0, 2 + (i % 4)), i % 2),
    );
    expect(fitLeaderboard(atCaps, { seed: 's', resamples: 5, limits }).models).toHaveLength(5);
    const refusal = (ballots: LeaderboardBallot[]) => {
      try {
        fitLeaderboard(ballots, { seed: 's', resamples: 5, limits });
      } catch (error) {
        return {
          name: (error as Error).name,
          kind: (error as { kind: string }).kind,
          field: (error as { field: string }).field,
        };
      }
      return null;
    };
    expect(refusal([...atCaps, ballot(['m0', 'm1'], 0)])).toEqual({
      name: 'ArenaError',
      kind: 'invalid_request',
      field: 'ballots',
    });
    expect(refusal([...atCaps.slice(1), ballot(['m5', 'm1'], 0)])).toMatchObject({ field: 'ballots' });
    expect(refusal([ballot(['a', 'b', 'c', 'd', 'e', 'f'], 0)])).toMatchObject({ field: 'ballots[0].order' });
    expect(refusal([ballot(['a', 'b'], 2)])).toMatchObject({ field: 'ballots[0].choice' });
    expect(refusal([ballot(['a', 'b'], 0.5)])).toMatchObject({ field: 'ballots[0].choice' });
    expect(refusal([ballot(['a', 'b'], 0), ballot(['a', 'b'], 0, { tokens: [1], markdown: [0, 0] })])).toMatchObject({
      field: 'ballots[1].style.tokens',
    });
    expect(refusal([ballot(['a', 'b'], 0, { tokens: [1, 2], markdown: [0, NaN] })])).toMatchObject({
      field: 'ballots[0].style.markdown',
    });
    expect(refusal([ballot([], null)])).toMatchObject({ field: 'ballots[0].order' });
  });

  test('options out of range are refused, naming the option', () => {
    const fieldOf = (options: Parameters<typeof fitLeaderboard>[1]) => {
      try {
        fitLeaderboard(FIXED, options);
      } catch (error) {
        return (error as { field: string }).field;
      }
      return null;
    };
    expect(fieldOf({ seed: 's', resamples: 0 })).toBe('resamples');
    expect(fieldOf({ seed: 's', resamples: 10_001 })).toBe('resamples');
    expect(fieldOf({ seed: 's', ridge: 0 })).toBe('ridge');
    expect(fieldOf({ seed: 's', maxIterations: 0 })).toBe('maxIterations');
    expect(fieldOf({ seed: 's', tolerance: -1 })).toBe('tolerance');
    expect(fieldOf({ seed: 's', limits: { maxBallots: 0, maxModels: 5, maxAnswers: 5 } })).toBe('limits.maxBallots');
    const prepared = prepareLeaderboardFit(FIXED, { seed: 's' });
    expect(() => completeLeaderboardFit(prepared, [])).toThrow(expect.objectContaining({ field: 'replicates' }));
    expect(() => completeLeaderboardFit(prepared, [{ values: [1], iterations: 1, converged: true }])).toThrow(
      expect.objectContaining({ field: 'replicates' }),
    );
  });

  test('without style, ballots missing style are fitted; with it, they are counted and left out', () => {
    const styled = ballot(['a', 'b'], 0, { tokens: [10, 20], markdown: [0, 1] });
    const plain = fitLeaderboard([styled, ballot(['b', 'a'], 0)], { seed: 's', resamples: 5 });
    expect(plain.comparisons).toBe(2);
    const controlled = fitLeaderboard([styled, ballot(['b', 'a'], 0)], { seed: 's', resamples: 5, styleControl: true });
    expect(controlled.comparisons).toBe(1);
    expect(controlled.skipped.noStyle).toBe(1);
  });
});
