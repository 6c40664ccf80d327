/**
 * `GET /api/v1/arena/leaderboard?from&to&style_control&family`: the account's leaderboard for a
 * range of days. Fits are kept per range and options and computed off the request path: a
 * request that finds none is answered 202 `computing` (retry shortly) and the fit runs after the
 * answer; one that finds a fit older than the account's last ended session gets it, marked
 * `stale`, and a new fit starts the same way. Two requests never compute the same fit at once.
 */
import { listFamilies, resolveFamily } from '../catalog/lookup.js';
import { logger } from '../config/logger.js';
import {
  claimLeaderboard,
  endedSessions,
  getLeaderboard,
  leaderboardSk,
  putLeaderboard,
} from '../store/arena-leaderboards.js';
import { accountOf, type AccountCall } from '../http/call.js';
import { tenantClients } from '../store/tenant-sessions.js';
import { envelope, type Reply } from '../http/reply.js';
import { invalidArenaRequest } from './arena-errors.js';
import { refitLeaderboard, type LeaderboardQuery, type LeaderboardResult } from './leaderboard-refit.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 30;
const MAX_DAYS = 366;
/** A computation's claim: longer than the longest fit, so a claim left by a crash lapses. */
const CLAIM_MS = 10 * 60_000;
/** The route's query parameters; the handler refuses any other (lambdas/http/define-handler.ts). */
export const LEADERBOARD_QUERY = ['from', 'to', 'style_control', 'family'] as const;

export async function answerLeaderboard(call: AccountCall): Promise<Reply> {
  const { query: params } = call.req;
  const query = leaderboardQuery(params, Date.now());
  const families = familiesOf(params['family']);
  const { accountId } = accountOf(call);
  const sk = leaderboardSk(query.from, query.to, query.styleControl);
  // The account's own items are read under its tenant session; the claim and the fit's write
  // stay the function role's (arenaSessions:write).
  const { dynamo: db } = await tenantClients(accountId);
  const [stored, ended] = await Promise.all([getLeaderboard(accountId, sk, db), endedSessions(accountId, db)]);
  const fresh = stored?.result !== undefined && (stored.sessionsSeen ?? -1) >= ended;
  if (!fresh) {
    const now = Date.now();
    if (await claimLeaderboard(accountId, sk, now, now + CLAIM_MS))
      call.afterResponse.push(async () => {
        try {
          await putLeaderboard(accountId, sk, await refitLeaderboard(accountId, query, db), ended);
        } catch (error) {
          // The claim lapses; the next request starts the fit again.
          logger.error('arena leaderboard fit failed', { error: (error as Error).stack });
        }
      });
  }
  const echo = { from: query.from, to: query.to, styleControl: query.styleControl };
  if (stored?.result === undefined) return envelope({ status: 'computing', ...echo }, 202, { 'Retry-After': '2' });
  return envelope({
    status: 'ready',
    ...echo,
    stale: !fresh,
    computedAt: stored.computedAt,
    ...view(stored.result as LeaderboardResult, families),
  });
}

function view(result: LeaderboardResult, families: ReadonlySet<string> | undefined) {
  const { fit } = result;
  const models = fit.models
    .map((row) => ({ ...row, family: resolveFamily(row.model)?.alias ?? null }))
    .filter((row) => families === undefined || (row.family !== null && families.has(row.family)));
  return {
    models,
    baseline: fit.baseline,
    scale: fit.scale,
    interval: fit.interval,
    style: fit.style,
    ballots: fit.ballots,
    comparisons: fit.comparisons,
    skipped: fit.skipped,
    components: fit.components,
    sessions: result.sessions,
    truncated: result.truncated,
    positionBias: result.positionBias,
    judgeAgreement: result.judgeAgreement,
  };
}

export function leaderboardQuery(params: Readonly<Record<string, string>>, now: number): LeaderboardQuery {
  const to = params['to'] ?? new Date(now).toISOString().slice(0, 10);
  if (!isDay(to)) throw invalidArenaRequest('to', 'to: must be a day, YYYY-MM-DD (UTC)');
  const from = params['from'] ?? new Date(Date.parse(to) - (DEFAULT_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  if (!isDay(from)) throw invalidArenaRequest('from', 'from: must be a day, YYYY-MM-DD (UTC)');
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
  if (days < 1) throw invalidArenaRequest('from', 'from: must not be after to');
  if (days > MAX_DAYS) throw invalidArenaRequest('from', `from: the range may span at most ${MAX_DAYS} days`);
  const style = params['style_control'];
  if (style !== undefined && style !== 'true' && style !== 'false')
    throw invalidArenaRequest('style_control', 'style_control: must be true or false');
  return { from, to, styleControl: style === 'true' };
}

const isDay = (value: string) =>
  DAY.test(value) && !Number.isNaN(Date.parse(value)) && new Date(value).toISOString().startsWith(value);

function familiesOf(value: string | undefined): ReadonlySet<string> | undefined {
  if (value === undefined) return undefined;
  const aliases = listFamilies().map((family) => family.alias);
  const asked = value.split(',').map((name) => name.trim().toLowerCase());
  for (const name of asked)
    if (!aliases.includes(name))
      throw invalidArenaRequest('family', `family: ${name.slice(0, 40)} is not one of ${aliases.join(', ')}`);
  return new Set(asked);
}
