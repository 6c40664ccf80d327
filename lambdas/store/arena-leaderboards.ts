import { conditionHolds, dynamo, fromItem, nowSeconds, tableName, toItem } from './dynamo.js';
import { accountPk } from './usage-items.js';
import type { AccountReads } from './arena-sessions.js';

/**
 * An account's arena leaderboards (jobs table, under the account): each fit kept for the range
 * and options it was asked with, and a count of the account's ended sessions, which says whether
 * a kept fit may be missing some. A fit is computed off the request path
 * (lambdas/arena/leaderboard-refit.ts); a claim on the item keeps two requests from computing
 * the same one at once.
 */

/** Kept a month: a range asked again after that is fitted afresh. */
const LEADERBOARD_TTL_SECONDS = 30 * 86_400;
const STATS_SK = 'ARENA_STATS';

export const leaderboardSk = (from: string, to: string, styleControl: boolean) =>
  `LEADERBOARD#${from}#${to}#${styleControl ? 'style' : 'plain'}`;

export interface StoredLeaderboard {
  /** The fit and its reports, as computed; absent while the first one is computed. */
  readonly result?: unknown;
  /** The account's ended-session count the result saw. */
  readonly sessionsSeen?: number;
  readonly computedAt?: string;
  /** Epoch ms: a computation claimed the item until then. */
  readonly computingUntil?: number;
}

export async function getLeaderboard(
  accountId: string,
  sk: string,
  db: AccountReads = dynamo(),
): Promise<StoredLeaderboard | undefined> {
  const { Item } = await db.getItem({
    TableName: tableName('jobs'),
    Key: toItem({ pk: accountPk(accountId), sk }),
  });
  if (!Item) return undefined;
  const stored = fromItem<StoredLeaderboard & { result?: string }>(Item);
  return { ...stored, ...(stored.result ? { result: JSON.parse(stored.result) as unknown } : {}) };
}

/** Claims the item for one computation until `until` (epoch ms); false when another holds it. */
export async function claimLeaderboard(accountId: string, sk: string, now: number, until: number): Promise<boolean> {
  return conditionHolds(() =>
    dynamo().updateItem({
      TableName: tableName('jobs'),
      Key: toItem({ pk: accountPk(accountId), sk }),
      UpdateExpression: 'SET computingUntil = :until, expiresAt = if_not_exists(expiresAt, :expires)',
      ConditionExpression: 'attribute_not_exists(computingUntil) OR computingUntil < :now',
      ExpressionAttributeValues: toItem({
        ':until': until,
        ':now': now,
        ':expires': nowSeconds(now) + LEADERBOARD_TTL_SECONDS,
      }),
    }),
  );
}

export async function putLeaderboard(
  accountId: string,
  sk: string,
  result: unknown,
  sessionsSeen: number,
  now = Date.now(),
): Promise<void> {
  await dynamo().putItem({
    TableName: tableName('jobs'),
    Item: toItem({
      pk: accountPk(accountId),
      sk,
      type: 'arena_leaderboard',
      result: JSON.stringify(result),
      sessionsSeen,
      computedAt: new Date(now).toISOString(),
      expiresAt: nowSeconds(now) + LEADERBOARD_TTL_SECONDS,
    }),
  });
}

/** Counts one more ended session of the account (a fight's ballots are final then). */
export async function countEndedSession(accountId: string): Promise<void> {
  await dynamo().updateItem({
    TableName: tableName('jobs'),
    Key: toItem({ pk: accountPk(accountId), sk: STATS_SK }),
    UpdateExpression: 'ADD endedSessions :one',
    ExpressionAttributeValues: toItem({ ':one': 1 }),
  });
}

export async function endedSessions(accountId: string, db: AccountReads = dynamo()): Promise<number> {
  const { Item } = await db.getItem({
    TableName: tableName('jobs'),
    Key: toItem({ pk: accountPk(accountId), sk: STATS_SK }),
  });
  return Item ? (fromItem<{ endedSessions?: number }>(Item).endedSessions ?? 0) : 0;
}
