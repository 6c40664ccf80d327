/**
 * Does where an answer is displayed sway the vote? (issue 22, section 3.) Votes are counted by
 * displayed position, separately for each ballot size k (the number of answers shown), since
 * the chance share of a position is 1/k.
 *
 * The test's premise is the ballot's shuffled display order (ballots.ts): every answer is equally
 * likely to be shown at each position whatever its model, so without a bias for positions every
 * position is chosen with probability 1/k however strong the models are. A ballot order that was
 * not shuffled would make model strength look like position bias.
 *
 * Per ballot size with votes:
 * - `first`: the exact two-sided binomial test of the votes for position A against 1/k (the bias
 *   judges most often show);
 * - `chiSquare`: Pearson's goodness-of-fit test of all k positions against 1/k each, k - 1
 *   degrees of freedom (an approximation, trustworthy once every position expects about 5
 *   votes).
 * `overall` pools the sizes: the sizes' chi-square statistics and degrees of freedom summed
 * (their votes are disjoint, so the sum is chi-square under no bias).
 *
 * Abstentions say nothing about positions and are counted apart; so are votes on ballots of one
 * answer, where position could not matter. Linear in the ballots; the binomial test is linear in
 * each size's votes.
 */

import { ballotLetter } from './ballots.js';
import {
  checkLeaderboardBallots,
  DEFAULT_LEADERBOARD_LIMITS,
  type LeaderboardBallot,
  type LeaderboardLimits,
} from './leaderboard-ballots.js';
import { binomialTwoSidedPValue, chiSquareSurvival } from './p-values.js';

export interface PositionVotes {
  readonly position: number;
  readonly letter: string;
  readonly votes: number;
  readonly share: number;
}

export interface ChiSquareTest {
  readonly statistic: number;
  readonly degreesOfFreedom: number;
  readonly pValue: number;
}

export interface BallotSizeBias {
  /** Answers on these ballots. */
  readonly answers: number;
  readonly votes: number;
  readonly expectedShare: number;
  readonly positions: PositionVotes[];
  /** Votes for position A, and the exact two-sided binomial test against 1/answers. */
  readonly first: { readonly votes: number; readonly share: number; readonly pValue: number };
  readonly chiSquare: ChiSquareTest;
}

export interface PositionBiasReport {
  readonly ballots: number;
  /** Votes on ballots of two or more answers: the votes reported by size. */
  readonly votes: number;
  readonly abstentions: number;
  readonly singleAnswer: number;
  /** By ballot size, smallest first; sizes without votes are left out. */
  readonly sizes: BallotSizeBias[];
  /** All sizes pooled; null when no size has votes. */
  readonly overall: ChiSquareTest | null;
}

export function positionBias(
  ballots: readonly LeaderboardBallot[],
  limits: LeaderboardLimits = DEFAULT_LEADERBOARD_LIMITS,
): PositionBiasReport {
  checkLeaderboardBallots(ballots, limits);
  const bySize = new Map<number, number[]>();
  let abstentions = 0;
  let singleAnswer = 0;
  for (const { order, choice } of ballots) {
    if (choice === null) abstentions++;
    else if (order.length < 2) singleAnswer++;
    else {
      const counts = bySize.get(order.length) ?? new Array<number>(order.length).fill(0);
      counts[choice]!++;
      bySize.set(order.length, counts);
    }
  }
  const sizes = [...bySize].sort(([a], [b]) => a - b).map(([answers, counts]) => sizeReport(answers, counts));
  const statistic = sizes.reduce((sum, size) => sum + size.chiSquare.statistic, 0);
  const degreesOfFreedom = sizes.reduce((sum, size) => sum + size.chiSquare.degreesOfFreedom, 0);
  return {
    ballots: ballots.length,
    votes: sizes.reduce((sum, size) => sum + size.votes, 0),
    abstentions,
    singleAnswer,
    sizes,
    overall:
      sizes.length === 0
        ? null
        : { statistic, degreesOfFreedom, pValue: chiSquareSurvival(statistic, degreesOfFreedom) },
  };
}

function sizeReport(answers: number, counts: readonly number[]): BallotSizeBias {
  const votes = counts.reduce((sum, count) => sum + count, 0);
  const expectedShare = 1 / answers;
  const expected = votes * expectedShare;
  const statistic = counts.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
  return {
    answers,
    votes,
    expectedShare,
    positions: counts.map((count, position) => ({
      position,
      letter: ballotLetter(position),
      votes: count,
      share: count / votes,
    })),
    first: {
      votes: counts[0]!,
      share: counts[0]! / votes,
      pValue: binomialTwoSidedPValue(counts[0]!, votes, expectedShare),
    },
    chiSquare: { statistic, degreesOfFreedom: answers - 1, pValue: chiSquareSurvival(statistic, answers - 1) },
  };
}
