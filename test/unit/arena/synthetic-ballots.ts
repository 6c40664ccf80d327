/**
 * Ballots drawn from known truths, for the leaderboard's tests: models of given strengths
 * (log-odds), judges that choose by Luce's rule (P(choose an answer) proportional to
 * exp(strength + style effect)), optionally a pull towards position A, abstentions, and answer
 * lengths per model. Seeded, so every test dataset is the same on every run.
 */

import type { LeaderboardBallot } from '../../../lambdas/arena/leaderboard-ballots.js';
import { randomIndex, seededRandom, shuffled } from '../../../lambdas/arena/seeded-random.js';

export interface SyntheticSpec {
  /** Model id -> true strength in log-odds. */
  readonly strengths: Readonly<Record<string, number>>;
  readonly ballots: number;
  /** Answers per ballot: each ballot draws a size from this list. */
  readonly sizes: readonly number[];
  readonly seed: string;
  /** The chance a judge picks position A outright, whatever is shown; default 0. */
  readonly pickFirst?: number;
  readonly abstain?: number;
  /** Model id -> [min, max] answer length in tokens; answers draw a length uniformly in it. */
  readonly lengths?: Readonly<Record<string, readonly [number, number]>>;
  /** Log-odds per unit of (own length - other's) / (own + other's), on two-answer ballots. */
  readonly lengthEffect?: number;
  readonly voters?: readonly string[];
  /** Ballots per group: consecutive ballots share `g<n>`, and judges within one see the same answers. */
  readonly groupSize?: number;
}

export function syntheticBallots(spec: SyntheticSpec): LeaderboardBallot[] {
  const random = seededRandom(spec.seed);
  const models = Object.keys(spec.strengths);
  const voters = spec.voters ?? ['judge'];
  const out: LeaderboardBallot[] = [];
  let shown: string[] = [];
  for (let i = 0; i < spec.ballots; i++) {
    const grouped = spec.groupSize !== undefined;
    const fresh = !grouped || i % spec.groupSize! === 0;
    const size = spec.sizes[randomIndex(spec.sizes.length, random)]!;
    if (fresh) shown = shuffled(models, random).slice(0, size);
    const order = shuffled(shown, random);
    const tokens = order.map((model) => {
      const [low, high] = spec.lengths?.[model] ?? [100, 100];
      return Math.round(low + random() * (high - low));
    });
    const voter = voters[grouped ? (i % spec.groupSize!) % voters.length : randomIndex(voters.length, random)]!;
    const base = {
      order,
      voter,
      style: { tokens, markdown: order.map(() => randomIndex(4, random)) },
      ...(grouped ? { group: `g${Math.floor(i / spec.groupSize!)}` } : {}),
    };
    if (random() < (spec.abstain ?? 0)) {
      out.push({ ...base, choice: null });
      continue;
    }
    if (random() < (spec.pickFirst ?? 0)) {
      out.push({ ...base, choice: 0 });
      continue;
    }
    const utility = order.map((model, j) => {
      let u = spec.strengths[model]!;
      if (order.length === 2 && spec.lengthEffect !== undefined) {
        const other = tokens[1 - j]!;
        u += (spec.lengthEffect * (tokens[j]! - other)) / (tokens[j]! + other) / 2;
      }
      return Math.exp(u);
    });
    out.push({ ...base, choice: pick(utility, random()) });
  }
  return out;
}

/** The index drawn with probability proportional to `weights`, from a uniform draw `u`. */
function pick(weights: readonly number[], u: number): number {
  const total = weights.reduce((sum, w) => sum + w, 0);
  let acc = 0;
  for (let j = 0; j < weights.length; j++) {
    acc += weights[j]! / total;
    if (u < acc) return j;
  }
  return weights.length - 1;
}
