import { dynamo, tableName, toItem } from './dynamo.js';
import { accountPk } from './usage-items.js';

/**
 * The record of one battle or fight session, written once it ends (jobs table): who played,
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
    readonly answered: readonly { readonly agent: string; readonly model: string; readonly chars: number }[];
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
  readonly endedAt: string;
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
      expiresAt: Math.floor(Date.parse(record.endedAt) / 1000) + ARENA_SESSION_TTL_SECONDS,
    }),
  });
}
