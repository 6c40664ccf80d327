import { dynamo, fromItem, nowSeconds, tableName, toItem } from './dynamo.js';
import { ownedItems } from './owner-index.js';

const SESSION_PK_PREFIX = 'SESSION#';

/** A dashboard session, stored under the hash of its opaque id (the cookie value). */
export interface SessionRecord {
  readonly accountId: string;
  readonly email: string;
  readonly createdAt: string;
  /** Epoch seconds; also the TTL attribute. */
  readonly expiresAt: number;
}

const sessionKey = (idHash: string) => toItem({ pk: `${SESSION_PK_PREFIX}${idHash}`, sk: 'SESSION' });

/** Listed under its account in the owner index, so a password change can end the others. */
export async function putSession(idHash: string, session: SessionRecord): Promise<void> {
  const owner = { ownerPk: `ACCOUNT#${session.accountId}`, ownerSk: `SESSION#${session.createdAt}#${idHash}` };
  await dynamo().putItem({
    TableName: tableName('identity'),
    Item: { ...sessionKey(idHash), ...toItem({ ...session, ...owner }) },
    ConditionExpression: 'attribute_not_exists(pk)',
  });
}

/** Expired sessions are refused here, whether or not TTL has deleted them yet. */
export async function getLiveSession(idHash: string, now = Date.now()): Promise<SessionRecord | undefined> {
  const { Item } = await dynamo().getItem({ TableName: tableName('identity'), Key: sessionKey(idHash) });
  if (!Item) return undefined;
  const session = fromItem<SessionRecord>(Item);
  return session.expiresAt > nowSeconds(now) ? session : undefined;
}

export async function deleteSession(idHash: string): Promise<void> {
  await dynamo().deleteItem({ TableName: tableName('identity'), Key: sessionKey(idHash) });
}

/**
 * Ends every session of the account. The owner index is eventually consistent: a session
 * started within a second or so before the call may be missed.
 */
export async function deleteSessionsOf(accountId: string): Promise<number> {
  let deleted = 0;
  for await (const item of ownedItems('identity', accountId, 'SESSION#')) {
    await deleteSession(fromItem<{ pk: string }>(item).pk.slice(SESSION_PK_PREFIX.length));
    deleted++;
  }
  return deleted;
}
