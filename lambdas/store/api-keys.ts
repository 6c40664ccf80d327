import type { UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import { storedBudgetOf, type StoredBudget } from './budget-counters.js';
import { conditionHolds, dynamo, fromItem, isConditionFailure, tableName, toItem, type Item } from './dynamo.js';
import { ownedItems } from './owner-index.js';

/** A service key as stored: a hash of the key, never the key itself. */

/** A secret key (server to server) or a publishable one (browsers, from allowed origins only). */
export type KeyType = 'secret' | 'publishable';

export interface ApiKeyRecord {
  readonly keyId: string;
  readonly accountId: string;
  readonly type: KeyType;
  /** Absent once revoked, so a revoked key can never verify again. */
  readonly hash?: string;
  readonly name: string;
  readonly rateLimit: number;
  readonly enabled: boolean;
  readonly revoked: boolean;
  readonly allowedOrigins: readonly string[];
  readonly createdAt: string;
  /** The key's spending limit; absent when it has none. */
  readonly budget?: StoredBudget;
}

/** Undefined leaves a field as it is; null removes it (only the budget may be removed). */
export interface ApiKeyChanges {
  readonly name?: string;
  readonly rateLimit?: number;
  readonly enabled?: boolean;
  readonly budget?: StoredBudget | null;
}

const keyKey = (keyId: string) => toItem({ pk: `KEY#${keyId}`, sk: 'KEY' });
const ownerPk = (accountId: string) => `ACCOUNT#${accountId}`;

export async function putApiKey(record: ApiKeyRecord): Promise<void> {
  await dynamo().putItem({
    TableName: tableName('identity'),
    Item: {
      ...keyKey(record.keyId),
      ...toItem({ ...record, ownerPk: ownerPk(record.accountId), ownerSk: `KEY#${record.createdAt}#${record.keyId}` }),
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  });
}

export async function getApiKey(keyId: string): Promise<ApiKeyRecord | undefined> {
  const { Item } = await dynamo().getItem({
    TableName: tableName('identity'),
    Key: keyKey(keyId),
    ConsistentRead: true,
  });
  return Item ? toRecord(Item) : undefined;
}

/** The account's live keys, oldest first. Revoked keys leave the owner index (it is sparse). */
export async function listApiKeys(accountId: string): Promise<ApiKeyRecord[]> {
  const records: ApiKeyRecord[] = [];
  for await (const item of ownedItems('identity', accountId, 'KEY#')) records.push(toRecord(item));
  return records;
}

/**
 * Applies changes to a live key of the given owner and returns the key as changed. Undefined
 * when there is no such key for that owner: another account's key is indistinguishable from a
 * missing one.
 */
export async function updateApiKey(
  accountId: string,
  keyId: string,
  changes: ApiKeyChanges,
): Promise<ApiKeyRecord | undefined> {
  const given = Object.entries(changes).filter(([, value]) => value !== undefined);
  if (given.length === 0) throw new Error('updateApiKey needs at least one change');
  const names: Record<string, string> = { '#owner': 'accountId', '#revoked': 'revoked' };
  const values: Record<string, unknown> = { ':owner': accountId, ':false': false };
  const sets: string[] = [];
  const removes: string[] = [];
  for (const [i, [field, value]] of given.entries()) {
    names[`#f${i}`] = field;
    if (value === null) {
      removes.push(`#f${i}`);
    } else {
      values[`:v${i}`] = value;
      sets.push(`#f${i} = :v${i}`);
    }
  }
  const clauses = [
    ...(sets.length > 0 ? [`SET ${sets.join(', ')}`] : []),
    ...(removes.length > 0 ? [`REMOVE ${removes.join(', ')}`] : []),
  ];
  try {
    const { Attributes } = await dynamo().updateItem({
      TableName: tableName('identity'),
      Key: keyKey(keyId),
      UpdateExpression: clauses.join(' '),
      ConditionExpression: 'attribute_exists(pk) AND #owner = :owner AND #revoked = :false',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: toItem(values),
      ReturnValues: 'ALL_NEW',
    });
    if (!Attributes) throw new Error('UpdateItem answered no attributes for ALL_NEW');
    return toRecord(Attributes);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/**
 * Revokes a key for good: the hash is removed (it can never verify again) and the key leaves
 * the owner index. `accountId` scopes the call to an owner; admins pass undefined.
 */
export async function revokeApiKey(keyId: string, accountId: string | undefined, now = new Date()): Promise<boolean> {
  const ownerCondition = accountId === undefined ? '' : ' AND #owner = :owner';
  return conditionalUpdate({
    Key: keyKey(keyId),
    UpdateExpression: 'SET #revoked = :true, #enabled = :false, revokedAt = :now REMOVE #hash, ownerPk, ownerSk',
    ConditionExpression: `attribute_exists(pk) AND #revoked = :false${ownerCondition}`,
    ExpressionAttributeNames: {
      '#revoked': 'revoked',
      '#enabled': 'enabled',
      '#hash': 'hash',
      ...(accountId === undefined ? {} : { '#owner': 'accountId' }),
    },
    ExpressionAttributeValues: toItem({
      ':true': true,
      ':false': false,
      ':now': now.toISOString(),
      ...(accountId === undefined ? {} : { ':owner': accountId }),
    }),
  });
}

function conditionalUpdate(input: Omit<UpdateItemCommandInput, 'TableName'>): Promise<boolean> {
  return conditionHolds(() => dynamo().updateItem({ TableName: tableName('identity'), ...input }));
}

function toRecord(item: Item): ApiKeyRecord {
  const raw = fromItem<ApiKeyRecord>(item);
  return {
    keyId: raw.keyId,
    accountId: raw.accountId,
    type: raw.type,
    hash: raw.hash,
    name: raw.name,
    rateLimit: raw.rateLimit,
    enabled: raw.enabled,
    revoked: raw.revoked,
    allowedOrigins: raw.allowedOrigins ?? [],
    createdAt: raw.createdAt,
    ...(raw.budget === undefined ? {} : { budget: storedBudgetOf(raw.budget, `API key ${raw.keyId}`) }),
  };
}
