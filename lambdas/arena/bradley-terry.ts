/**
 * Penalised maximum likelihood for the Bradley–Terry model in its logistic form, with optional
 * covariates: a comparison won by model a over model b, with covariate differences x (winner's
 * minus loser's), has probability sigma(theta_a - theta_b + beta . x).
 *
 * The objective is the weighted log-likelihood of the rows minus (ridge / 2) times the squared
 * norm of all parameters (strengths and covariate coefficients): a Gaussian prior of variance
 * 1 / ridge in log-odds units. The ridge keeps the answer finite when a model won or lost every
 * comparison (or a covariate separates the outcomes), makes the objective strictly concave (one
 * answer, whatever the start), and fixes the free shift of Bradley–Terry strengths: every
 * comparison adds as much to one strength's gradient as it takes from another's, so at the
 * optimum the ridge term alone sums to zero and the strengths average exactly 0.
 *
 * Method: Newton's method on the concave objective with a backtracking line search (the full
 * step is taken whenever it does not lower the objective, which near the answer is always), the
 * linear system solved by Cholesky factorisation of the information matrix, which the ridge
 * keeps positive definite. One pass over the rows gives the objective, gradient and Hessian at a
 * point, so an iteration costs a pass per trial step (one, but for rare halvings) and the
 * factorisation of a (models + covariates)-square matrix: O(rows * (2 + covariates)^2 +
 * parameters^3 / 6). It stops when a Newton step moves no parameter by more than `tolerance`
 * (log-odds units; that last step is taken unchecked, as it cannot overshoot), or after
 * `maxIterations`, reporting which.
 */

/** Comparison rows: parameters 0..models-1 are strengths, models.. are covariate coefficients. */
export interface ComparisonRows {
  readonly models: number;
  readonly covariates: number;
  readonly winner: Int32Array;
  readonly loser: Int32Array;
  /** Row-major, `covariates` values per row: the winner's covariate minus the loser's. */
  readonly x: Float64Array;
}

export interface SolverSettings {
  readonly ridge: number;
  readonly maxIterations: number;
  readonly tolerance: number;
}

export interface Solution {
  readonly params: Float64Array;
  readonly iterations: number;
  readonly converged: boolean;
}

// Held locally: a hot loop then looks up no global, which is slow inside a vm context (as jest runs modules).
const { abs, exp, log1p, max, sqrt } = Math;

/** A line search halves the step at most this often: 2^-40 of a Newton step is no progress. */
const MAX_HALVINGS = 40;

/** The penalised maximum-likelihood parameters for `rows` weighted by `weights`, from `start`. */
export function fitBradleyTerry(
  rows: ComparisonRows,
  weights: Float64Array,
  start: Float64Array,
  settings: SolverSettings,
): Solution {
  let params = Float64Array.from(start);
  let at = evaluate(rows, weights, params, settings.ridge);
  for (let iteration = 1; iteration <= settings.maxIterations; iteration++) {
    const step = choleskySolve(at.information, at.gradient, params.length);
    // A step this small cannot overshoot: take it without reading the rows again.
    if (maxAbs(step) < settings.tolerance) {
      return { params: params.map((p, i) => p + step[i]!), iterations: iteration, converged: true };
    }
    let accepted = false;
    for (let halvings = 0, scale = 1; halvings <= MAX_HALVINGS && !accepted; halvings++, scale /= 2) {
      const trial = params.map((p, i) => p + scale * step[i]!);
      const next = evaluate(rows, weights, trial, settings.ridge);
      // Rounding can make an exact optimum look a hair lower than its neighbour: tolerate it.
      if (next.value >= at.value - 1e-12 * (1 + abs(at.value))) {
        params = trial;
        at = next;
        accepted = true;
      }
    }
    // No step along Newton's direction improves: the answer is as good as doubles allow.
    if (!accepted) return { params, iterations: iteration, converged: true };
  }
  return { params, iterations: settings.maxIterations, converged: false };
}

function margin(rows: ComparisonRows, params: Float64Array, r: number): number {
  let z = params[rows.winner[r]!]! - params[rows.loser[r]!]!;
  for (let f = 0; f < rows.covariates; f++) z += params[rows.models + f]! * rows.x[r * rows.covariates + f]!;
  return z;
}

/** The objective, its gradient and its negated Hessian (the information matrix, row-major), in one pass. */
function evaluate(rows: ComparisonRows, weights: Float64Array, params: Float64Array, ridge: number) {
  const size = params.length;
  const { models, covariates, x } = rows;
  let value = 0;
  const gradient = new Float64Array(size);
  // Accumulated in the lower triangle only (row >= column), mirrored at the end.
  const information = new Float64Array(size * size);
  const lower = (i: number, j: number) => (i >= j ? i * size + j : j * size + i);
  for (let r = 0; r < weights.length; r++) {
    const w = weights[r]!;
    if (w === 0) continue;
    const z = margin(rows, params, r);
    const e = exp(-abs(z));
    // log sigma(z) and sigma(-z) from the one exponential, stable for either sign of z.
    value += w * (z >= 0 ? -log1p(e) : z - log1p(e));
    const lose = z >= 0 ? e / (1 + e) : 1 / (1 + e);
    const g = w * lose;
    const h = w * lose * (1 - lose);
    const a = rows.winner[r]!;
    const b = rows.loser[r]!;
    gradient[a]! += g;
    gradient[b]! -= g;
    information[a * size + a]! += h;
    information[b * size + b]! += h;
    information[lower(a, b)]! -= h;
    for (let f = 0; f < covariates; f++) {
      const xf = x[r * covariates + f]!;
      const row = (models + f) * size;
      gradient[models + f]! += g * xf;
      // Covariate parameters come after every strength, so (models + f, a) is in the lower triangle.
      information[row + a]! += h * xf;
      information[row + b]! -= h * xf;
      for (let k = 0; k <= f; k++) information[row + models + k]! += h * xf * x[r * covariates + k]!;
    }
  }
  for (let i = 0; i < size; i++) {
    value -= (ridge / 2) * params[i]! ** 2;
    gradient[i]! -= ridge * params[i]!;
    information[i * size + i]! += ridge;
    for (let j = 0; j < i; j++) information[j * size + i] = information[i * size + j]!;
  }
  return { value, gradient, information };
}

/**
 * Solves `matrix . out = rhs` for a symmetric positive definite `matrix` (row-major, `size`
 * square), factorising a copy. A pivot that rounding drove to zero or below is floored at a
 * tiny positive value: the ridge makes that impossible in exact arithmetic, and a floored pivot
 * only shortens the step along a direction the objective hardly changes in.
 */
function choleskySolve(matrix: Float64Array, rhs: Float64Array, size: number): Float64Array {
  const l = Float64Array.from(matrix);
  for (let j = 0; j < size; j++) {
    let d = l[j * size + j]!;
    for (let k = 0; k < j; k++) d -= l[j * size + k]! ** 2;
    const pivot = sqrt(max(d, 1e-300));
    l[j * size + j] = pivot;
    for (let i = j + 1; i < size; i++) {
      let s = l[i * size + j]!;
      for (let k = 0; k < j; k++) s -= l[i * size + k]! * l[j * size + k]!;
      l[i * size + j] = s / pivot;
    }
  }
  const y = new Float64Array(size);
  for (let i = 0; i < size; i++) {
    let s = rhs[i]!;
    for (let k = 0; k < i; k++) s -= l[i * size + k]! * y[k]!;
    y[i] = s / l[i * size + i]!;
  }
  const out = new Float64Array(size);
  for (let i = size - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < size; k++) s -= l[k * size + i]! * out[k]!;
    out[i] = s / l[i * size + i]!;
  }
  return out;
}

function maxAbs(values: Float64Array): number {
  let out = 0;
  for (const v of values) if (abs(v) > out) out = abs(v);
  return out;
}
