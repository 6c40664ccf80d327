import type { ProviderKeyRecord } from '../store/provider-keys.js';

/** A stored provider key as callers see it: never the key, only its last four characters. */
export function describeProviderKey(record: ProviderKeyRecord) {
  return {
    id: record.id,
    provider: record.provider,
    slug: record.slug,
    displayName: record.displayName ?? null,
    apiKey: `••••${record.last4}`,
    createdAt: record.createdAt,
  };
}
