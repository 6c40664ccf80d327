import { getApiKey, type ApiKeyRecord } from '../store/api-keys.js';
import { RecordDirectory, RECORD_CACHE_TTL_MS, RECORD_REFRESH_AFTER_MS } from './record-directory.js';

/** Key records by key id, cached (lambdas/identity/record-directory.ts). */
export const KEY_CACHE_TTL_MS = RECORD_CACHE_TTL_MS;
export const KEY_REFRESH_AFTER_MS = RECORD_REFRESH_AFTER_MS;

export class KeyDirectory extends RecordDirectory<ApiKeyRecord> {
  constructor(
    load: (keyId: string) => Promise<ApiKeyRecord | null> = async (keyId) => (await getApiKey(keyId)) ?? null,
    now: () => number = Date.now,
  ) {
    super(load, now);
  }
}

const directory = new KeyDirectory();

export const findApiKey = (keyId: string) => directory.find(keyId);

/** Work for after the response: see KEY_REFRESH_AFTER_MS. */
export const refreshDueKeys = () => directory.refreshDue();

/** The instance that changed a key drops its own copy at once. */
export const forgetApiKey = (keyId: string) => directory.forget(keyId);
