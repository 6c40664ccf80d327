/**
 * The p-values the leaderboard's reports give (position-bias.ts), computed in log space: with
 * tens of thousands of ballots a binomial probability is a ratio of factorials far beyond a
 * double's range, and a strong effect's p-value is smaller than a double's smallest normal.
 */

/** Lanczos coefficients (g = 7, nine terms): log-gamma to about 15 significant digits. */
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Gamma(x) for x > 0. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/**
 * The exact two-sided binomial test of `successes` in `trials` against probability `p` (0 < p
 * < 1): the probability, under p, of every outcome no more likely than the one observed (the
 * rule R's binom.test uses, with its relative tolerance of 1e-7 for outcomes as likely as the
 * observed one). O(trials); 1 when there were no trials.
 */
export function binomialTwoSidedPValue(successes: number, trials: number, p: number): number {
  if (trials === 0) return 1;
  const logP = Math.log(p);
  const logQ = Math.log1p(-p);
  const logChooseBase = logGamma(trials + 1);
  const logPmf = (k: number) =>
    logChooseBase - logGamma(k + 1) - logGamma(trials - k + 1) + k * logP + (trials - k) * logQ;
  const threshold = logPmf(successes) + Math.log1p(1e-7);
  const included: number[] = [];
  for (let k = 0; k <= trials; k++) {
    const value = logPmf(k);
    if (value <= threshold) included.push(value);
  }
  return Math.min(1, Math.exp(logSumExp(included)));
}

/** P(X >= statistic) for X chi-square with `degreesOfFreedom` (> 0) degrees of freedom. */
export function chiSquareSurvival(statistic: number, degreesOfFreedom: number): number {
  return upperRegularizedGamma(degreesOfFreedom / 2, statistic / 2);
}

/**
 * Q(a, x) = Gamma(a, x) / Gamma(a): by the series for P = 1 - Q below x = a + 1, where Q is not
 * small, else by the continued fraction (modified Lentz), which gives Q directly and keeps its
 * relative precision far into the tail.
 */
function upperRegularizedGamma(a: number, x: number): number {
  if (!(x > 0)) return 1;
  const logPrefix = -x + a * Math.log(x) - logGamma(a);
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 10_000 && Math.abs(term) > Math.abs(sum) * 1e-17; n++) {
      term *= x / (a + n);
      sum += term;
    }
    return Math.max(0, 1 - Math.exp(logPrefix + Math.log(sum)));
  }
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 10_000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.min(1, Math.exp(logPrefix + Math.log(h)));
}

function logSumExp(values: readonly number[]): number {
  let max = -Infinity;
  for (const value of values) max = Math.max(max, value);
  if (max === -Infinity) return -Infinity;
  let sum = 0;
  for (const value of values) sum += Math.exp(value - max);
  return max + Math.log(sum);
}
