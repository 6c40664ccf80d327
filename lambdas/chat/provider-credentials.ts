import type { ProviderId } from '../catalog/model-catalog.js';
import type { GatewayConfiguration } from '../config/configuration.js';
import { TtlCache } from '../store/ttl-cache.js';
import { baseUrlFor, platformEndpoint, type ProviderEndpoint } from '../providers/provider-config.js';
import { listProviderKeys } from '../store/provider-keys.js';
import { readProviderKeySecret } from '../store/provider-key-secrets.js';
import { tenantClients } from '../store/tenant-sessions.js';

/**
 * A caller's stored provider keys replace the platform's for their provider. Resolved keys
 * are cached per account for at most five minutes (a Secrets Manager read per request would
 * cost milliseconds), and dropped at once on this instance when the caller deletes one.
 */
const CACHE_TTL_MS = 5 * 60_000;
const byAccount = new TtlCache<Promise<Map<ProviderId, string>>>(CACHE_TTL_MS, 10_000);

export function endpointsFor(
  accountId: string,
  config: GatewayConfiguration,
): (provider: ProviderId) => Promise<ProviderEndpoint | undefined> {
  return async (provider) => {
    const own = (await storedKeys(accountId)).get(provider);
    return own ? { baseUrl: baseUrlFor(provider, config), apiKey: own } : platformEndpoint(provider, config);
  };
}

export function forgetStoredKeys(accountId: string): void {
  byAccount.delete(accountId);
}

function storedKeys(accountId: string): Promise<Map<ProviderId, string>> {
  let keys = byAccount.get(accountId);
  if (!keys) {
    keys = loadStoredKeys(accountId);
    keys.catch(() => byAccount.delete(accountId));
    byAccount.set(accountId, keys);
  }
  return keys;
}

/**
 * The newest stored key per provider wins. The secrets are read under the account's tenant
 * session, and only when it has stored keys: an account without any costs no STS call.
 */
async function loadStoredKeys(accountId: string): Promise<Map<ProviderId, string>> {
  const records = await listProviderKeys(accountId);
  const newest = new Map<ProviderId, (typeof records)[number]>();
  for (const record of records) newest.set(record.provider, record);
  const keys = new Map<ProviderId, string>();
  if (newest.size === 0) return keys;
  const client = await (await tenantClients(accountId)).secretsManager();
  await Promise.all(
    [...newest.values()].map(async (record) =>
      keys.set(record.provider, await readProviderKeySecret(record.secretId, client)),
    ),
  );
  return keys;
}
