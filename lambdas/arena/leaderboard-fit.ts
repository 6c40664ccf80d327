/**
 * The arena leaderboard's ratings (issue 22, section 3): a Bradley–Terry fit of the pairwise
 * comparisons that ballots imply, on an Elo-like scale, with bootstrap intervals and optional
 * style control. Pure and synchronous: storage and the route are the caller's.
 *
 * Data. Each vote is a pairwise win of the chosen answer's model over the model of every other
 * answer on its ballot (leaderboard-ballots.ts: abstentions and same-model pairs yield nothing,
 * no ballot yields a tie). A model is rated once it has at least one comparison; models seen
 * only on abstentions or only against themselves are left out.
 *
 * Model. P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400)): a 400-point gap is tenfold odds, as in
 * Elo. Strengths are fitted by penalised maximum likelihood (bradley-terry.ts) with a ridge of
 * `ridge` (default 0.01: a Gaussian prior of standard deviation 10 log-odds, about 1,700
 * points), which keeps a model that won or lost everything finite and hardly moves a model with
 * a few dozen comparisons. Treating a k-answer vote as k-1 pairwise wins is a composite
 * likelihood; if judges choose by Luce's rule (P(choose i) proportional to 10^(R_i / 400)) its
 * estimates are still consistent, and the intervals below resample whole ballots, so the
 * comparisons of one ballot are never treated as independent evidence.
 *
 * Scale and baseline. rating = 1000 + 400 * log10(e) * (theta - theta_baseline). The baseline
 * is the `anchor` model when one is named and has comparisons (it rates exactly 1000, and its
 * interval is [1000, 1000] by construction), else the mean strength of the rated models (the
 * ratings then average 1000).
 *
 * Intervals. 95% percentile bootstrap: `resamples` (default 1,000) resamples of the contributing
 * ballots, each of as many ballots drawn with replacement, each refitted from the full fit's
 * answer; a model's interval is the 2.5th and 97.5th percentiles (linear interpolation between
 * order statistics) of its rating over the resamples, each replicate measured from its own
 * baseline. Resample r draws from seededRandom(`<seed>:resample:<r>`), so the answer depends
 * only on the ballots (as a multiset: their order is irrelevant), the options and the seed, and
 * is the same however the resamples are split into chunks. `rating` is the full data's fit, not a
 * bootstrap average.
 *
 * Style control (as LMArena does). Each comparison also carries, per feature (answer length in
 * tokens, markdown element count), the normalised difference (winner - loser) / (winner + loser)
 * (0 when both are 0), divided by its root mean square over all comparisons. The mean is not
 * subtracted: the difference changes sign with the order of the pair, so its centre is zero by
 * symmetry. The fit then has one coefficient per feature beside the strengths, and ratings are
 * what remains after style: two models whose answers differ only in length rate alike. A
 * coefficient is the log-odds of winning that one root-mean-square unit of the feature in one's
 * favour adds; a feature that never varies is not fitted (its rms and coefficient are 0). Ballots
 * stored without style are left out of a style-controlled fit and counted.
 *
 * Work. Ballots are reduced to distinct patterns (the comparisons a ballot yields, with their
 * style differences), and the comparisons to distinct rows (without style control at most one row
 * per ordered model pair, so the fit reads a win matrix). A fit's Newton iteration costs
 * O(rows * (2 + features)^2 + parameters^3 / 6); a resample adds one draw per contributing ballot
 * and one pass over the patterns. `prepareLeaderboardFit` reports the estimate (`cost`);
 * `resampleLeaderboard` runs any range of resamples, so a consumer can spread the bootstrap over
 * several invocations (prepare again, which is cheap and deterministic, and carry the replicates,
 * which are plain JSON) and `completeLeaderboardFit` assembles the answer. Every factor is
 * capped: ballots, models and answers per ballot by `limits` (leaderboard-ballots.ts),
 * resamples by MAX_RESAMPLES, iterations by `maxIterations` (at most 1,000). Input beyond a cap,
 * a malformed ballot or an option out of range is refused with the arena's `invalid_request`
 * naming the field; nothing else is thrown.
 */

import { invalidArenaRequest } from './arena-errors.js';
import { fitBradleyTerry, type ComparisonRows, type Solution, type SolverSettings } from './bradley-terry.js';
import {
  ballotComparisons,
  checkLeaderboardBallots,
  DEFAULT_LEADERBOARD_LIMITS,
  type LeaderboardBallot,
  type LeaderboardLimits,
} from './leaderboard-ballots.js';
import { seededRandom } from './seeded-random.js';

export const BASE_RATING = 1000;
/** Rating points per log-odds unit: 400 points per factor 10. */
export const POINTS_PER_LOG_ODDS = 400 / Math.LN10;
export const MAX_RESAMPLES = 10_000;
const INTERVAL_LEVEL = 0.95;

export type StyleFeature = 'length' | 'markdown';
const STYLE_FEATURES: readonly StyleFeature[] = ['length', 'markdown'];

export interface LeaderboardFitOptions {
  /** Seeds the bootstrap's resamples. */
  readonly seed: string;
  /** Bootstrap resamples, 1 to MAX_RESAMPLES; default 1,000. */
  readonly resamples?: number;
  /** Fit answer length and markdown as covariates; default false. */
  readonly styleControl?: boolean;
  /** The model rated 1000, when it has comparisons; otherwise the models' mean is. */
  readonly anchor?: string;
  /** The ridge on all parameters (log-odds units), above 0; default 0.01. */
  readonly ridge?: number;
  /** Newton iterations per fit, 1 to 1000; default 100. */
  readonly maxIterations?: number;
  /**
   * The largest parameter step (log-odds) that counts as converged, above 0; default 1e-6
   * (0.0002 points). Newton converges quadratically, so the error left after such a step is
   * near its square.
   */
  readonly tolerance?: number;
  /** Bounds on the ballots; default DEFAULT_LEADERBOARD_LIMITS. */
  readonly limits?: LeaderboardLimits;
}

export interface LeaderboardRow {
  readonly model: string;
  readonly rating: number;
  /** The 95% bootstrap interval of the rating. */
  readonly interval: [number, number];
  /** Comparisons won, lost, and both (see leaderboard-ballots.ts for what a comparison is). */
  readonly wins: number;
  readonly losses: number;
  readonly battles: number;
}

export interface StyleEffect {
  readonly feature: StyleFeature;
  /** Log-odds per root-mean-square unit of the feature's normalised difference. */
  readonly coefficient: number;
  readonly interval: [number, number];
  /** The root mean square the differences were divided by; 0 when the feature never varied. */
  readonly rms: number;
}

export interface LeaderboardBaseline {
  readonly kind: 'mean' | 'model';
  /** The anchor model, for kind 'model'. */
  readonly model?: string;
  readonly rating: number;
  readonly description: string;
}

export interface LeaderboardFit {
  /** Rated models, by rating (highest first), then model id. */
  readonly models: LeaderboardRow[];
  /** Ballots given, and those that contributed comparisons. */
  readonly ballots: number;
  readonly contributing: number;
  readonly comparisons: number;
  /** Ballots that contributed nothing: abstentions, votes with no other model, and (with style control) no style. */
  readonly skipped: { readonly abstentions: number; readonly noComparison: number; readonly noStyle: number };
  readonly baseline: LeaderboardBaseline;
  readonly scale: { readonly pointsPerTenfoldOdds: 400 };
  readonly interval: {
    readonly level: number;
    readonly method: 'percentile bootstrap over ballots';
    readonly resamples: number;
    readonly seed: string;
  };
  /** Style coefficients; null without style control. */
  readonly style: StyleEffect[] | null;
  /** Connected groups of models in the comparison graph: ratings across groups are not comparable. */
  readonly components: number;
  /** Newton iterations over all fits, and fits that stopped at maxIterations. */
  readonly work: { readonly iterations: number; readonly unconverged: number };
}

/** The estimated work of one resample, in row visits and arithmetic operations. */
export interface LeaderboardFitCost {
  readonly contributing: number;
  readonly patterns: number;
  readonly rows: number;
  readonly parameters: number;
  /** Newton iterations the full data's fit took: a resample, started from its answer, takes fewer. */
  readonly pointIterations: number;
  readonly operationsPerResample: number;
}

/** One bootstrap resample: ratings in model order, then style coefficients; plain JSON. */
export interface LeaderboardReplicate {
  readonly values: number[];
  readonly iterations: number;
  readonly converged: boolean;
}

interface ResolvedOptions {
  readonly seed: string;
  readonly resamples: number;
  readonly styleControl: boolean;
  readonly anchor: string | undefined;
  readonly solver: SolverSettings;
}

export interface PreparedLeaderboardFit {
  readonly options: ResolvedOptions;
  readonly ballots: number;
  readonly skipped: LeaderboardFit['skipped'];
  /** Rated models, sorted by id: parameter i is models[i]'s strength. */
  readonly models: readonly string[];
  /** The fitted style features (those that vary) and every requested feature's rms. */
  readonly features: readonly StyleFeature[];
  readonly rms: ReadonlyMap<StyleFeature, number>;
  readonly rows: ComparisonRows;
  /** Pattern p's rows are patternRows[patternStart[p] .. patternStart[p + 1]), with repeats. */
  readonly patternStart: Int32Array;
  readonly patternRows: Int32Array;
  /** Each contributing ballot's pattern, in canonical order: the bootstrap draws from these. */
  readonly slots: Int32Array;
  /** Each row's count over the full data. */
  readonly weights: Float64Array;
  readonly baselineIndex: number | null;
  readonly point: Solution;
  readonly cost: LeaderboardFitCost;
}

/** The fit with its bootstrap intervals: prepare, every resample, complete. */
export function fitLeaderboard(ballots: readonly LeaderboardBallot[], options: LeaderboardFitOptions): LeaderboardFit {
  const prepared = prepareLeaderboardFit(ballots, options);
  return completeLeaderboardFit(prepared, resampleLeaderboard(prepared, 0, prepared.options.resamples));
}

/** Checks and reduces the ballots, and fits the full data. */
export function prepareLeaderboardFit(
  ballots: readonly LeaderboardBallot[],
  options: LeaderboardFitOptions,
): PreparedLeaderboardFit {
  const resolved = resolveOptions(options);
  checkLeaderboardBallots(ballots, options.limits ?? DEFAULT_LEADERBOARD_LIMITS);
  const reduced = reduceBallots(ballots, resolved.styleControl);
  const models = [...new Set(reduced.comparisons.flatMap((c) => [c.winner, c.loser]))].sort();
  const rms = new Map(
    (resolved.styleControl ? STYLE_FEATURES : []).map((feature, f) => [feature, rootMeanSquare(reduced, f)]),
  );
  const features = [...rms].filter(([, value]) => value > 0).map(([feature]) => feature);
  const table = rowTable(reduced, models, features, rms);
  const point = fitBradleyTerry(
    table.rows,
    table.weights,
    new Float64Array(models.length + features.length),
    resolved.solver,
  );
  const baselineIndex = resolved.anchor === undefined ? -1 : models.indexOf(resolved.anchor);
  const patternEntries = table.patternRows.length;
  const s = features.length;
  const parameters = models.length + s;
  const cost: LeaderboardFitCost = {
    contributing: table.slots.length,
    patterns: table.patternStart.length - 1,
    rows: table.weights.length,
    parameters,
    pointIterations: point.iterations,
    operationsPerResample:
      table.slots.length +
      patternEntries +
      point.iterations * (table.weights.length * (2 + s) ** 2 + Math.ceil(parameters ** 3 / 6)),
  };
  return {
    options: resolved,
    ballots: ballots.length,
    skipped: reduced.skipped,
    models,
    features,
    rms,
    ...table,
    baselineIndex: baselineIndex >= 0 ? baselineIndex : null,
    point,
    cost,
  };
}

/** Resamples first .. first + count - 1 (of any range: each draws from its own seed). */
export function resampleLeaderboard(
  prepared: PreparedLeaderboardFit,
  first: number,
  count: number,
): LeaderboardReplicate[] {
  if (!Number.isSafeInteger(first) || first < 0)
    throw invalidArenaRequest('first', 'first must be an integer of at least 0');
  if (!Number.isSafeInteger(count) || count < 0 || count > MAX_RESAMPLES)
    throw invalidArenaRequest('count', `count must be an integer from 0 to ${MAX_RESAMPLES}`);
  const { slots, patternStart, patternRows, rows, point, options } = prepared;
  const patterns = patternStart.length - 1;
  const drawn = new Int32Array(patterns);
  const weights = new Float64Array(prepared.weights.length);
  const out: LeaderboardReplicate[] = [];
  for (let r = first; r < first + count; r++) {
    const random = seededRandom(`${options.seed}:resample:${r}`);
    drawn.fill(0);
    // A draw in [0, 1) times the count, truncated: an index below the count (no global lookup per draw).
    for (let i = 0; i < slots.length; i++) drawn[slots[(random() * slots.length) | 0]!]!++;
    weights.fill(0);
    for (let p = 0; p < patterns; p++) {
      const times = drawn[p]!;
      if (times === 0) continue;
      for (let e = patternStart[p]!; e < patternStart[p + 1]!; e++) weights[patternRows[e]!]! += times;
    }
    const solution = fitBradleyTerry(rows, weights, point.params, options.solver);
    out.push({
      values: reported(prepared, solution.params),
      iterations: solution.iterations,
      converged: solution.converged,
    });
  }
  return out;
}

/** The leaderboard from the prepared fit and its resamples (at least one). */
export function completeLeaderboardFit(
  prepared: PreparedLeaderboardFit,
  replicates: readonly LeaderboardReplicate[],
): LeaderboardFit {
  const { models, features, options } = prepared;
  const width = models.length + features.length;
  if (replicates.length < 1 || replicates.length > MAX_RESAMPLES)
    throw invalidArenaRequest('replicates', `between 1 and ${MAX_RESAMPLES} resamples are needed`);
  if (replicates.some((replicate) => replicate.values.length !== width))
    throw invalidArenaRequest('replicates', 'a replicate does not belong to this fit');
  const point = reported(prepared, prepared.point.params);
  const interval = (i: number) => percentileInterval(replicates.map((replicate) => replicate.values[i]!));
  const tally = winsAndLosses(prepared);
  const rows = models
    .map((model, i): LeaderboardRow => {
      const { wins, losses } = tally[i]!;
      return { model, rating: point[i]!, interval: interval(i), wins, losses, battles: wins + losses };
    })
    .sort((a, b) => b.rating - a.rating || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
  const style = options.styleControl
    ? STYLE_FEATURES.map((feature): StyleEffect => {
        const f = features.indexOf(feature);
        const rms = prepared.rms.get(feature) ?? 0;
        if (f < 0) return { feature, coefficient: 0, interval: [0, 0], rms };
        return { feature, coefficient: point[models.length + f]!, interval: interval(models.length + f), rms };
      })
    : null;
  return {
    models: rows,
    ballots: prepared.ballots,
    contributing: prepared.slots.length,
    comparisons: prepared.weights.reduce((sum, w) => sum + w, 0),
    skipped: prepared.skipped,
    baseline: baselineOf(prepared),
    scale: { pointsPerTenfoldOdds: 400 },
    interval: {
      level: INTERVAL_LEVEL,
      method: 'percentile bootstrap over ballots',
      resamples: replicates.length,
      seed: options.seed,
    },
    style,
    components: components(prepared),
    work: {
      iterations: prepared.point.iterations + replicates.reduce((sum, replicate) => sum + replicate.iterations, 0),
      unconverged: [prepared.point, ...replicates].filter((fit) => !fit.converged).length,
    },
  };
}

function resolveOptions(options: LeaderboardFitOptions): ResolvedOptions {
  const resamples = options.resamples ?? 1000;
  if (!Number.isSafeInteger(resamples) || resamples < 1 || resamples > MAX_RESAMPLES)
    throw invalidArenaRequest('resamples', `resamples must be an integer from 1 to ${MAX_RESAMPLES}`);
  if (typeof options.seed !== 'string') throw invalidArenaRequest('seed', 'seed must be a string');
  const ridge = options.ridge ?? 0.01;
  if (!(Number.isFinite(ridge) && ridge > 0)) throw invalidArenaRequest('ridge', 'ridge must be a number above 0');
  const maxIterations = options.maxIterations ?? 100;
  if (!Number.isSafeInteger(maxIterations) || maxIterations < 1 || maxIterations > 1000)
    throw invalidArenaRequest('maxIterations', 'maxIterations must be an integer from 1 to 1000');
  const tolerance = options.tolerance ?? 1e-6;
  if (!(Number.isFinite(tolerance) && tolerance > 0))
    throw invalidArenaRequest('tolerance', 'tolerance must be a number above 0');
  return {
    seed: options.seed,
    resamples,
    styleControl: options.styleControl ?? false,
    anchor: options.anchor,
    solver: { ridge, maxIterations, tolerance },
  };
}

interface ReducedComparison {
  readonly winner: string;
  readonly loser: string;
  /** Raw normalised style differences, one per style feature; empty without style control. */
  readonly style: readonly number[];
}

interface Reduced {
  /** Distinct patterns, sorted by key, with their counts and comparisons. */
  readonly patterns: { readonly count: number; readonly comparisons: readonly ReducedComparison[] }[];
  /** Every comparison of every pattern once (for the model set and the rms), with its pattern's count. */
  readonly comparisons: readonly (ReducedComparison & { readonly count: number })[];
  readonly skipped: LeaderboardFit['skipped'];
}

/** Ballots to distinct patterns, in an order that does not depend on the ballots' order. */
function reduceBallots(ballots: readonly LeaderboardBallot[], styleControl: boolean): Reduced {
  const skipped = { abstentions: 0, noComparison: 0, noStyle: 0 };
  const byKey = new Map<string, { count: number; comparisons: ReducedComparison[] }>();
  for (const ballot of ballots) {
    if (ballot.choice === null) {
      skipped.abstentions++;
      continue;
    }
    const style = ballot.style;
    if (styleControl && style === undefined) {
      skipped.noStyle++;
      continue;
    }
    const comparisons = ballotComparisons(ballot).map(
      ({ winner, loser, winnerIndex, loserIndex }): ReducedComparison => ({
        winner,
        loser,
        style:
          styleControl && style
            ? [style.tokens, style.markdown].map((values) =>
                normalisedDifference(values[winnerIndex]!, values[loserIndex]!),
              )
            : [],
      }),
    );
    if (comparisons.length === 0) {
      skipped.noComparison++;
      continue;
    }
    const keyed = comparisons.map((c) => ({ c, key: JSON.stringify([c.winner, c.loser, ...c.style]) }));
    keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const key = keyed.map(({ key }) => key).join('\n');
    const known = byKey.get(key);
    if (known) known.count++;
    else byKey.set(key, { count: 1, comparisons: keyed.map(({ c }) => c) });
  }
  const patterns = [...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, pattern]) => pattern);
  const comparisons = patterns.flatMap((pattern) => pattern.comparisons.map((c) => ({ ...c, count: pattern.count })));
  return { patterns, comparisons, skipped };
}

/** (a - b) / (a + b), and 0 when both are 0: in [-1, 1] whatever the feature's units. */
function normalisedDifference(a: number, b: number): number {
  return a + b === 0 ? 0 : (a - b) / (a + b);
}

function rootMeanSquare(reduced: Reduced, feature: number): number {
  let sum = 0;
  let count = 0;
  for (const c of reduced.comparisons) {
    sum += c.count * c.style[feature]! ** 2;
    count += c.count;
  }
  return count === 0 ? 0 : Math.sqrt(sum / count);
}

/** Distinct rows (a row per ordered model pair without style), the patterns over them and the ballot slots. */
function rowTable(
  reduced: Reduced,
  models: readonly string[],
  features: readonly StyleFeature[],
  rms: ReadonlyMap<StyleFeature, number>,
) {
  const index = new Map(models.map((model, i) => [model, i]));
  const featureColumns = features.map((feature) => STYLE_FEATURES.indexOf(feature));
  const rowOf = new Map<string, number>();
  const winner: number[] = [];
  const loser: number[] = [];
  const x: number[] = [];
  const patternStart = new Int32Array(reduced.patterns.length + 1);
  const patternRows: number[] = [];
  const slots = new Int32Array(reduced.patterns.reduce((sum, pattern) => sum + pattern.count, 0));
  let slot = 0;
  reduced.patterns.forEach((pattern, p) => {
    for (const c of pattern.comparisons) {
      const values = featureColumns.map((column, f) => c.style[column]! / rms.get(features[f]!)!);
      const key = JSON.stringify([c.winner, c.loser, ...values]);
      let row = rowOf.get(key);
      if (row === undefined) {
        row = winner.length;
        rowOf.set(key, row);
        winner.push(index.get(c.winner)!);
        loser.push(index.get(c.loser)!);
        x.push(...values);
      }
      patternRows.push(row);
    }
    patternStart[p + 1] = patternRows.length;
    slots.fill(p, slot, slot + pattern.count);
    slot += pattern.count;
  });
  const weights = new Float64Array(winner.length);
  reduced.patterns.forEach((pattern, p) => {
    for (let e = patternStart[p]!; e < patternStart[p + 1]!; e++) weights[patternRows[e]!]! += pattern.count;
  });
  const rows: ComparisonRows = {
    models: models.length,
    covariates: features.length,
    winner: Int32Array.from(winner),
    loser: Int32Array.from(loser),
    x: Float64Array.from(x),
  };
  return { rows, weights, patternStart, patternRows: Int32Array.from(patternRows), slots };
}

/** Ratings on the reported scale (measured from this solution's own baseline), then style coefficients. */
function reported(prepared: PreparedLeaderboardFit, params: Float64Array): number[] {
  const m = prepared.models.length;
  let baseline = 0;
  if (prepared.baselineIndex !== null) baseline = params[prepared.baselineIndex]!;
  else if (m > 0) {
    for (let i = 0; i < m; i++) baseline += params[i]!;
    baseline /= m;
  }
  const out: number[] = [];
  for (let i = 0; i < m; i++) out.push(BASE_RATING + POINTS_PER_LOG_ODDS * (params[i]! - baseline));
  for (let i = m; i < params.length; i++) out.push(params[i]!);
  return out;
}

/** The 2.5th and 97.5th percentiles, interpolating linearly between order statistics. */
function percentileInterval(values: number[]): [number, number] {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => {
    const h = (sorted.length - 1) * q;
    const low = Math.floor(h);
    const high = Math.min(low + 1, sorted.length - 1);
    return sorted[low]! + (h - low) * (sorted[high]! - sorted[low]!);
  };
  const tail = (1 - INTERVAL_LEVEL) / 2;
  return [at(tail), at(1 - tail)];
}

function winsAndLosses(prepared: PreparedLeaderboardFit): { wins: number; losses: number }[] {
  const out = prepared.models.map(() => ({ wins: 0, losses: 0 }));
  prepared.weights.forEach((w, r) => {
    out[prepared.rows.winner[r]!]!.wins += w;
    out[prepared.rows.loser[r]!]!.losses += w;
  });
  return out;
}

function baselineOf(prepared: PreparedLeaderboardFit): LeaderboardBaseline {
  const { anchor } = prepared.options;
  if (prepared.baselineIndex !== null)
    return {
      kind: 'model',
      model: anchor!,
      rating: BASE_RATING,
      description: `${anchor} is rated ${BASE_RATING}; 400 points are tenfold odds of winning`,
    };
  const missing = anchor === undefined ? '' : ` (the anchor ${anchor} has no comparisons)`;
  return {
    kind: 'mean',
    rating: BASE_RATING,
    description: `the rated models average ${BASE_RATING}${missing}; 400 points are tenfold odds of winning`,
  };
}

/** Connected components of the graph whose edges are the compared model pairs. */
function components(prepared: PreparedLeaderboardFit): number {
  const parent = prepared.models.map((_, i) => i);
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  let count = prepared.models.length;
  for (let r = 0; r < prepared.weights.length; r++) {
    const a = root(prepared.rows.winner[r]!);
    const b = root(prepared.rows.loser[r]!);
    if (a !== b) {
      parent[a] = b;
      count--;
    }
  }
  return count;
}
