import { PROVIDER_IDS, PROVIDERS, apiKeyEnvVar, baseUrlEnvVar, type ProviderId } from '../catalog/index.js';
import { ENV, optionalEnv } from '../config/environment.js';
import { logger } from '../config/logger.js';
import { readSecret } from '../store/secret-values.js';

/** Where and with which key the platform calls a provider. */
export interface ProviderEndpoint {
  readonly baseUrl: string;
  readonly apiKey: string;
}

/**
 * The platform's own provider endpoints. The key comes from `<PROVIDER>_API_KEY` (local
 * runtime, tests) or from the platform keys secret (the cloud: set by the operator after
 * deploy); the base URL from `<PROVIDER>_BASE_URL`, else the provider's public API.
 * A provider without a key is not configured: requests route around it.
 */
export async function platformEndpoint(provider: ProviderId): Promise<ProviderEndpoint | undefined> {
  const apiKey = process.env[apiKeyEnvVar(provider)] || (await platformKeys())[provider];
  if (!apiKey) return undefined;
  return { baseUrl: baseUrlFor(provider), apiKey };
}

export function baseUrlFor(provider: ProviderId): string {
  return (process.env[baseUrlEnvVar(provider)] || PROVIDERS[provider].defaultBaseUrl).replace(/\/+$/, '');
}

export async function configuredProviders(): Promise<Set<ProviderId>> {
  const configured = new Set<ProviderId>();
  for (const provider of PROVIDER_IDS) if (await platformEndpoint(provider)) configured.add(provider);
  return configured;
}

/**
 * How long one reading of the platform keys secret, readable or not, stands. `/api/health`
 * is unauthenticated and asks for every provider: without this, an unreadable secret (not
 * set, no permission, throttled) cost every caller one Secrets Manager call per provider,
 * since the secret cache forgets failures. A readable value stays in that cache longer.
 */
const PLATFORM_KEYS_RECHECK_MS = 30_000;
let platformKeysRead: { secretId: string; keys: Promise<PlatformKeys>; until: number } | undefined;

type PlatformKeys = Partial<Record<ProviderId, string>>;

/** The platform keys secret, read at most once per PLATFORM_KEYS_RECHECK_MS; unreadable means none. */
function platformKeys(): Promise<PlatformKeys> {
  const secretId = optionalEnv(ENV.platformKeysSecretId);
  if (!secretId) return Promise.resolve({});
  const now = Date.now();
  if (platformKeysRead?.secretId !== secretId || platformKeysRead.until <= now) {
    platformKeysRead = { secretId, keys: readPlatformKeys(secretId), until: now + PLATFORM_KEYS_RECHECK_MS };
  }
  return platformKeysRead.keys;
}

async function readPlatformKeys(secretId: string): Promise<PlatformKeys> {
  try {
    const parsed = JSON.parse(await readSecret(secretId)) as Record<string, unknown>;
    const keys: PlatformKeys = {};
    for (const provider of PROVIDER_IDS) {
      const value = parsed[provider];
      if (typeof value === 'string' && value !== '') keys[provider] = value;
    }
    return keys;
  } catch (error) {
    logger.warn('platform provider keys unreadable', { error: (error as Error).name });
    return {};
  }
}
