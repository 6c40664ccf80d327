import { dynamo, fromItem, tableName, toItem, type Item } from './dynamo.js';
import type { DynamoDb } from './dynamodb-client.js';
import { accountPk } from './usage-items.js';

/**
 * The record of one battle or fight session (jobs table), written when it starts and at the
 * end of each host's tenure (lambdas/arena/session-host.ts), so the account's list shows a
 * session from its start: who played,
 * each round's result, and every ballot with the displayed order of the answers and the choice
 * made, so position bias can be audited. The usage ledger's entries carry its session id.
 * Answers' text is not kept (callers' content stays out of long-lived records; it also keeps
 * the item far below DynamoDB's 400 KB).
 */
export interface ArenaSessionRecord {
  readonly sessionId: string;
  readonly accountId: string;
  readonly keyId?: string;
  readonly route: string;
  readonly mode: string;
  readonly fightStyle?: string;
  readonly multiInstance: boolean;
  readonly seed: string;
  readonly agents: readonly { readonly agent: string; readonly model: string }[];
  readonly rounds: number;
  readonly status: string;
  readonly winner: string | null;
  readonly roundResults: readonly {
    readonly round: number;
    readonly answered: readonly {
      readonly agent: string;
      readonly model: string;
      readonly chars: number;
      /** Markdown elements (headers, list items, bold runs): what style control reads. */
      readonly markdown?: number;
    }[];
    readonly failed: readonly { readonly agent: string; readonly code: string }[];
    readonly results?: readonly { readonly agent: string; readonly votes: number }[];
    readonly winner: string | null;
  }[];
  readonly ballots: readonly {
    readonly round: number;
    readonly voter: string;
    readonly order: readonly string[];
    readonly choice: string | null;
    readonly reason?: string;
  }[];
  readonly finalLeaderboard: readonly { readonly agent: string; readonly score: number; readonly rank: number }[];
  /** ISO 8601. */
  readonly startedAt: string;
  /** When the record was last written: each host's tenure ends with a write. */
  readonly updatedAt: string;
  /** Once the session is over (any status but `running`). */
  readonly endedAt?: string;
}

/** Kept a year, then left to TTL: long enough for audits of a season of sessions. */
export const ARENA_SESSION_TTL_SECONDS = 365 * 86_400;

export const arenaSessionSk = (startedAt: string, sessionId: string) => `ARENA#${startedAt}#${sessionId}`;

export async function saveArenaSession(record: ArenaSessionRecord): Promise<void> {
  await dynamo().putItem({
    TableName: tableName('jobs'),
    Item: toItem({
      pk: accountPk(record.accountId),
      sk: arenaSessionSk(record.startedAt, record.sessionId),
      type: 'arena_session',
      ...record,
      expiresAt: Math.floor(Date.parse(record.updatedAt) / 1000) + ARENA_SESSION_TTL_SECONDS,
    }),
  });
}

const RECORD_PREFIX = 'ARENA#';

/**
 * Reads of an account's own items (`ACCOUNT#<id>`): the tenant-facing routes pass the account's
 * tenant session (lambdas/store/tenant-sessions.ts), whose policy reaches only that partition.
 */
export type AccountReads = Pick<DynamoDb, 'getItem' | 'query'>;

/** A session's record; its start time is part of its key (the META in the session log holds it). */
export async function getArenaSession(
  accountId: string,
  startedAt: string,
  sessionId: string,
  db: AccountReads = dynamo(),
): Promise<ArenaSessionRecord | undefined> {
  const { Item } = await db.getItem({
    TableName: tableName('jobs'),
    Key: toItem({ pk: accountPk(accountId), sk: arenaSessionSk(startedAt, sessionId) }),
  });
  return Item ? recordOf(Item) : undefined;
}

export interface ArenaSessionPage {
  readonly sessions: ArenaSessionRecord[];
  /** The sort key to continue after; undefined on the last page. */
  readonly after?: string;
}

/** The account's sessions, newest first, `limit` at a time, continuing after a sort key. */
export async function listArenaSessions(
  accountId: string,
  limit: number,
  after?: string,
  db: AccountReads = dynamo(),
): Promise<ArenaSessionPage> {
  const { Items, LastEvaluatedKey } = await db.query({
    TableName: tableName('jobs'),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: toItem({ ':pk': accountPk(accountId), ':prefix': RECORD_PREFIX }),
    ...(after?.startsWith(RECORD_PREFIX) ? { ExclusiveStartKey: toItem({ pk: accountPk(accountId), sk: after }) } : {}),
    ScanIndexForward: false,
    Limit: limit,
  });
  const sessions = (Items ?? []).map(recordOf);
  const last = LastEvaluatedKey ? fromItem<{ sk: string }>(LastEvaluatedKey).sk : undefined;
  return { sessions, ...(last ? { after: last } : {}) };
}

function recordOf(item: Item): ArenaSessionRecord {
  const {
    pk: _pk,
    sk: _sk,
    type: _type,
    expiresAt: _expires,
    ...record
  } = fromItem<ArenaSessionRecord & { pk: string; sk: string; type: string; expiresAt: number }>(item);
  return record;
}

/** The account's session records started in [fromIso, toIso], oldest first, page by page. */
export async function* arenaSessionsBetween(
  accountId: string,
  fromIso: string,
  toIso: string,
  db: AccountReads = dynamo(),
): AsyncGenerator<ArenaSessionRecord> {
  let startKey: Item | undefined;
  do {
    const page = await db.query({
      TableName: tableName('jobs'),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: toItem({
        ':pk': accountPk(accountId),
        ':from': `${RECORD_PREFIX}${fromIso}`,
        ':to': `${RECORD_PREFIX}${toIso}~`,
      }),
      ExclusiveStartKey: startKey,
    });
    for (const item of page.Items ?? []) yield recordOf(item);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
