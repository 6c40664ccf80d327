/**
 * The arena leaderboard's input (issue 22, section 3): a stored ballot in model terms, the limits
 * that bound every statistic computed from ballots, and the pairwise comparisons a ballot yields.
 * The fit (leaderboard-fit.ts), the position-bias report (position-bias.ts) and judge agreement
 * (judge-agreement.ts) all read ballots through here.
 *
 * A ballot is one judge's vote on the answers of one round, stored as the models that wrote the
 * answers in the order they were displayed. It knows nothing of agents or sessions beyond an
 * optional group key, so ballots from every session of an account can be pooled.
 *
 * Comparisons (what a vote says):
 * - a vote for the answer at `choice` is a pairwise win of its model over the model of each
 *   other answer on the ballot, one comparison per other answer;
 * - an answer by the same model as the chosen one is no comparison: a model is never compared
 *   with itself (multi-instance ballots show one model several times);
 * - a model shown twice and passed over loses twice: each of its answers was displayed and not
 *   chosen. The comparisons of one ballot are therefore not independent; the fit's intervals
 *   resample whole ballots, which accounts for that;
 * - answers that were not chosen are not compared with each other (a vote ranks only its
 *   choice), and no ballot yields a tie: a tie would need a vote for two answers;
 * - an abstention (`choice` null) yields nothing, and neither does a ballot of one answer.
 */

import { invalidArenaRequest } from './arena-errors.js';

export interface LeaderboardBallot {
  /** The models whose answers were displayed, in displayed order: `order[0]` was answer A. */
  readonly order: readonly string[];
  /** The index into `order` of the answer voted for; null for an abstention. */
  readonly choice: number | null;
  /** The judging model. */
  readonly voter: string;
  /**
   * Ballots cast on the same answers (a session's round, e.g. `<sessionId>:<round>`): judge
   * agreement compares judges within a group only.
   */
  readonly group?: string;
  /** Per displayed answer, in `order`'s order: what style control reads. */
  readonly style?: AnswerStyle;
}

export interface AnswerStyle {
  /** Each answer's length in tokens. */
  readonly tokens: readonly number[];
  /** Each answer's count of markdown elements (headers, list items, bold runs). */
  readonly markdown: readonly number[];
}

/**
 * The bounds on a computation's input. Every statistic here is linear in the ballots given, and
 * the fit's per-iteration solve grows with the cube of the models, so both are capped, and a
 * ballot's answers are capped at the ballot letters A-Z.
 */
export interface LeaderboardLimits {
  readonly maxBallots: number;
  /** Distinct models over all ballots, abstentions included. */
  readonly maxModels: number;
  readonly maxAnswers: number;
}

export const DEFAULT_LEADERBOARD_LIMITS: LeaderboardLimits = { maxBallots: 100_000, maxModels: 64, maxAnswers: 26 };

/** One pairwise win a vote implies; the indexes are displayed positions on the ballot. */
export interface Comparison {
  readonly winner: string;
  readonly loser: string;
  readonly winnerIndex: number;
  readonly loserIndex: number;
}

/** The comparisons `ballot` yields (see the header), in displayed order of the losers. */
export function ballotComparisons(ballot: LeaderboardBallot): Comparison[] {
  const { order, choice } = ballot;
  if (choice === null) return [];
  const winner = order[choice]!;
  const out: Comparison[] = [];
  order.forEach((loser, loserIndex) => {
    if (loser !== winner) out.push({ winner, loser, winnerIndex: choice, loserIndex });
  });
  return out;
}

/**
 * The distinct models of `ballots`, sorted, after checking every ballot's shape and `limits`.
 * Stored ballots are the gateway's own records, so a malformed one is refused rather than
 * guessed at: the error names the ballot and the field.
 */
export function checkLeaderboardBallots(ballots: readonly LeaderboardBallot[], limits: LeaderboardLimits): string[] {
  checkLimits(limits);
  if (!Array.isArray(ballots)) throw invalidArenaRequest('ballots', 'ballots must be an array');
  if (ballots.length > limits.maxBallots)
    throw invalidArenaRequest('ballots', `at most ${limits.maxBallots} ballots, got ${ballots.length}`);
  const models = new Set<string>();
  ballots.forEach((ballot, i) => {
    checkBallot(ballot, `ballots[${i}]`, limits.maxAnswers);
    for (const model of ballot.order) models.add(model);
    if (models.size > limits.maxModels)
      throw invalidArenaRequest('ballots', `at most ${limits.maxModels} distinct models`);
  });
  return [...models].sort();
}

function checkLimits(limits: LeaderboardLimits): void {
  for (const name of ['maxBallots', 'maxModels', 'maxAnswers'] as const)
    if (!Number.isSafeInteger(limits[name]) || limits[name] < 1)
      throw invalidArenaRequest(`limits.${name}`, `${name} must be a positive integer`);
}

function checkBallot(ballot: LeaderboardBallot, field: string, maxAnswers: number): void {
  if (typeof ballot !== 'object' || ballot === null) throw invalidArenaRequest(field, 'a ballot must be an object');
  const { order, choice, voter, group, style } = ballot;
  if (!Array.isArray(order) || order.length < 1 || order.length > maxAnswers)
    throw invalidArenaRequest(`${field}.order`, `order must list 1 to ${maxAnswers} models`);
  if (!order.every((model) => typeof model === 'string'))
    throw invalidArenaRequest(`${field}.order`, 'order must list model ids');
  if (choice !== null && !(Number.isInteger(choice) && choice >= 0 && choice < order.length))
    throw invalidArenaRequest(`${field}.choice`, 'choice must be null or an index into order');
  if (typeof voter !== 'string') throw invalidArenaRequest(`${field}.voter`, 'voter must be a model id');
  if (group !== undefined && typeof group !== 'string')
    throw invalidArenaRequest(`${field}.group`, 'group must be a string');
  if (style === undefined) return;
  for (const name of ['tokens', 'markdown'] as const) {
    const values = style?.[name];
    if (!Array.isArray(values) || values.length !== order.length)
      throw invalidArenaRequest(`${field}.style.${name}`, `style.${name} must hold one number per answer`);
    if (!values.every((value) => Number.isFinite(value) && value >= 0))
      throw invalidArenaRequest(`${field}.style.${name}`, `style.${name} must hold finite numbers of at least 0`);
  }
}
