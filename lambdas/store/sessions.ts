import { dynamo, fromItem, nowSeconds, tableName, toItem } from './dynamo.js';

/** A dashboard session, stored under the hash of its opaque id (the cookie value). */
export interface SessionRecord {
  readonly accountId: string;
  readonly email: string;
  readonly createdAt: string;
  /** Epoch seconds; also the TTL attribute. */
  readonly expiresAt: number;
}

const sessionKey = (idHash: string) => toItem({ pk: `SESSION#${idHash}`, sk: 'SESSION' });

export async function putSession(idHash: string, session: SessionRecord): Promise<void> {
  await dynamo().putItem({
    TableName: tableName('identity'),
    Item: { ...sessionKey(idHash), ...toItem({ ...session }) },
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
