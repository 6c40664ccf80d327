import { batchedGet } from './batch-reads.js';
import { batchedPut } from './batch-writes.js';
import { fromItem, nowSeconds, tableName, toItem } from './dynamo.js';

/** A cached answer: the completion as served, and who served it. */
export interface CachedAnswer {
  readonly body: string;
  readonly model: string;
  readonly provider: string;
  /** X-Guardrail-Status of the answer as it was stored (empty when no guardrail ran). */
  readonly guardrailStatus?: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
}

/** DynamoDB's item limit is 400 KB; keys and attributes need a little of it. */
export const MAX_CACHED_BODY_BYTES = 380_000;

const cacheKey = (accountId: string, hash: string) => toItem({ pk: `RESPONSE#${accountId}#${hash}`, sk: 'RESPONSE' });

/** Scoped by account: one tenant never reads another's answers. Expiry is checked here. */
export async function getCachedAnswer(
  accountId: string,
  hash: string,
  now = Date.now(),
): Promise<CachedAnswer | undefined> {
  // Shares a BatchGetItem with the reads of concurrent requests.
  const Item = await batchedGet(tableName('cache'), cacheKey(accountId, hash));
  if (!Item) return undefined;
  const answer = fromItem<CachedAnswer>(Item);
  return answer.expiresAt > nowSeconds(now)
    ? {
        body: answer.body,
        model: answer.model,
        provider: answer.provider,
        expiresAt: answer.expiresAt,
        ...(answer.guardrailStatus ? { guardrailStatus: answer.guardrailStatus } : {}),
      }
    : undefined;
}

/** Returns false, storing nothing, when the answer is too large for an item. */
export async function putCachedAnswer(accountId: string, hash: string, answer: CachedAnswer): Promise<boolean> {
  if (Buffer.byteLength(answer.body) > MAX_CACHED_BODY_BYTES) return false;
  // Shares a BatchWriteItem with concurrent requests' writes (a put by key is idempotent).
  await batchedPut(tableName('cache'), { ...cacheKey(accountId, hash), ...toItem({ ...answer }) });
  return true;
}
