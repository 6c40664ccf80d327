import { getApiKey, type ApiKeyRecord } from '../store/api-keys.js';
import { TtlCache } from './ttl-cache.js';

/**
 * Key records by key id, cached briefly so the hot path rarely reads DynamoDB. The TTL bounds
 * how long a disabled or revoked key keeps working on an instance that already cached it
 * (the requirement is 5 s everywhere). Missing keys are cached too, so a flood of made-up
 * key ids cannot turn into a flood of reads.
 */
export const KEY_CACHE_TTL_MS = 2_000;

const cache = new TtlCache<Promise<ApiKeyRecord | null>>(KEY_CACHE_TTL_MS, 10_000);

export function findApiKey(keyId: string): Promise<ApiKeyRecord | null> {
  let record = cache.get(keyId);
  if (!record) {
    record = getApiKey(keyId).then((found) => found ?? null);
    record.catch(() => cache.delete(keyId));
    cache.set(keyId, record);
  }
  return record;
}

/** The instance that changed a key drops its own copy at once. */
export function forgetApiKey(keyId: string): void {
  cache.delete(keyId);
}
