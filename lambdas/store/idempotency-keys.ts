import { conditionHolds, dynamo, fromItem, nowSeconds, tableName, toItem } from './dynamo.js';

/**
 * `Idempotency-Key` records in the cache table, per account, kept 24 hours (TTL attribute
 * `expiresAt`, and checked on read: TTL deletion is late). A key is first claimed (`pending`)
 * with a conditional put, so of two concurrent requests with the same key exactly one goes on
 * to do the work; the winner then records the result (`done`) or releases the claim when the
 * work failed before anything was created. A claim whose holder died is taken over after
 * `CLAIM_MS`, by a request with the same body only.
 */

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Longer than any run call takes (its function's timeout): a claim older than this was abandoned. */
export const CLAIM_MS = 60_000;

export type Claim =
  | { readonly kind: 'claimed' }
  /** The key already produced a result for the same body. */
  | { readonly kind: 'replay'; readonly result: string }
  /** Another request with this key and body is still running. */
  | { readonly kind: 'in_flight' }
  /** The key was used with a different body. */
  | { readonly kind: 'mismatch' };

interface IdempotencyItem {
  readonly fingerprint: string;
  readonly state: 'pending' | 'done';
  readonly result?: string;
  readonly claimUntilMs: number;
  readonly expiresAt: number;
}

const itemKey = (accountId: string, key: string) =>
  toItem({ pk: `IDEMPOTENCY#${accountId}#${key}`, sk: 'IDEMPOTENCY' });
const NAMES = { '#state': 'state', '#fingerprint': 'fingerprint' };

export async function claimIdempotencyKey(
  accountId: string,
  key: string,
  fingerprint: string,
  now = Date.now(),
): Promise<Claim> {
  for (let round = 0; round < 3; round++) {
    if (await putClaim(accountId, key, fingerprint, now)) return { kind: 'claimed' };
    const existing = await readRecord(accountId, key, now);
    // Gone or expired between the put and the read: claim again.
    if (!existing) continue;
    if (existing.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (existing.state === 'done' && existing.result !== undefined) return { kind: 'replay', result: existing.result };
    return { kind: 'in_flight' };
  }
  return { kind: 'in_flight' };
}

function putClaim(accountId: string, key: string, fingerprint: string, now: number): Promise<boolean> {
  const item: IdempotencyItem = {
    fingerprint,
    state: 'pending',
    claimUntilMs: now + CLAIM_MS,
    expiresAt: nowSeconds(now + IDEMPOTENCY_TTL_MS),
  };
  return conditionHolds(() =>
    dynamo().putItem({
      TableName: tableName('cache'),
      Item: { ...itemKey(accountId, key), ...toItem({ ...item }) },
      ConditionExpression:
        'attribute_not_exists(pk) OR expiresAt <= :nowSeconds OR ' +
        '(#state = :pending AND #claimUntil <= :now AND #fingerprint = :fingerprint)',
      ExpressionAttributeNames: { ...NAMES, '#claimUntil': 'claimUntilMs' },
      ExpressionAttributeValues: toItem({
        ':nowSeconds': nowSeconds(now),
        ':pending': 'pending',
        ':now': now,
        ':fingerprint': fingerprint,
      }),
    }),
  );
}

/** Records the claimed key's result; false when the claim was lost (taken over after CLAIM_MS). */
export function completeIdempotencyKey(
  accountId: string,
  key: string,
  fingerprint: string,
  result: string,
): Promise<boolean> {
  return conditionHolds(() =>
    dynamo().updateItem({
      TableName: tableName('cache'),
      Key: itemKey(accountId, key),
      UpdateExpression: 'SET #state = :done, #result = :result',
      ConditionExpression: '#state = :pending AND #fingerprint = :fingerprint',
      ExpressionAttributeNames: { ...NAMES, '#result': 'result' },
      ExpressionAttributeValues: toItem({
        ':done': 'done',
        ':pending': 'pending',
        ':result': result,
        ':fingerprint': fingerprint,
      }),
    }),
  );
}

/** Frees a claimed key whose work failed before creating anything, so a retry may run. */
export function releaseIdempotencyKey(accountId: string, key: string, fingerprint: string): Promise<boolean> {
  return conditionHolds(() =>
    dynamo().deleteItem({
      TableName: tableName('cache'),
      Key: itemKey(accountId, key),
      ConditionExpression: '#state = :pending AND #fingerprint = :fingerprint',
      ExpressionAttributeNames: NAMES,
      ExpressionAttributeValues: toItem({ ':pending': 'pending', ':fingerprint': fingerprint }),
    }),
  );
}

async function readRecord(accountId: string, key: string, now: number): Promise<IdempotencyItem | undefined> {
  const { Item } = await dynamo().getItem({
    TableName: tableName('cache'),
    Key: itemKey(accountId, key),
    ConsistentRead: true,
  });
  const record = Item ? fromItem<IdempotencyItem>(Item) : undefined;
  return record && record.expiresAt > nowSeconds(now) ? record : undefined;
}
