import { PROVIDER_IDS, PROVIDERS, type ProviderId } from '../catalog/model-catalog.js';
import type { GatewayConfiguration } from '../config/configuration.js';
import { logger } from '../config/logger.js';
import { readSecret } from '../store/secret-values.js';
import type { AwsSigning } from './bedrock/bedrock-signing.js';

/** Where and with which key the platform calls a provider. */
export interface ProviderEndpoint {
  readonly baseUrl: string;
  /** Empty for a provider called with the function role (`signing`). */
  readonly apiKey: string;
  /** A keyless provider's region and the function role's credentials (Bedrock). */
  readonly signing?: AwsSigning;
}

/**
 * The platform's own provider endpoints. The key comes from `<PROVIDER>_API_KEY` (local
 * runtime, tests) or from the platform keys secret (the cloud: set by the operator after
 * deploy); the base URL from `<PROVIDER>_BASE_URL`, else the provider's public API.
 * A provider without a key is not configured: requests route around it.
 */
export async function platformEndpoint(
  provider: ProviderId,
  config: GatewayConfiguration,
): Promise<ProviderEndpoint | undefined> {
  if (PROVIDERS[provider].credential === 'aws-role') return roleEndpoint(provider, config);
  return platformEndpointOf(PROVIDERS[provider], config);
}

export function baseUrlFor(provider: ProviderId, config: GatewayConfiguration): string {
  return serviceBaseUrl(PROVIDERS[provider], config);
}

/**
 * A provider called with the function role (Bedrock): configured wherever the function has
 * credentials and a region (in AWS, always); `<STEM>_BASE_URL` replaces the region's endpoint.
 * Whether the account may use a model is Bedrock's to say (model access, IAM): a refusal is an
 * `auth` failure the router falls back from.
 */
function roleEndpoint(provider: ProviderId, config: GatewayConfiguration): ProviderEndpoint | undefined {
  const region = config.bedrockRegion;
  if (!config.credentials || !region) return undefined;
  const { accessKeyId, secretAccessKey, sessionToken } = config.credentials;
  return {
    baseUrl:
      config.platformService(PROVIDERS[provider].envStem).baseUrl ?? `https://bedrock-runtime.${region}.amazonaws.com`,
    apiKey: '',
    signing: { region, credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } },
  };
}

/** Any upstream the platform holds a key for (chat or search): its id names its platform key. */
export interface PlatformService {
  readonly id: string;
  readonly envStem: string;
  readonly defaultBaseUrl: string;
}

export async function platformEndpointOf(
  service: PlatformService,
  config: GatewayConfiguration,
): Promise<ProviderEndpoint | undefined> {
  const apiKey = config.platformService(service.envStem).apiKey || (await platformKeys(config))[service.id];
  if (!apiKey) return undefined;
  return { baseUrl: serviceBaseUrl(service, config), apiKey };
}

function serviceBaseUrl(service: PlatformService, config: GatewayConfiguration): string {
  return config.platformService(service.envStem).baseUrl ?? service.defaultBaseUrl.replace(/\/+$/, '');
}

export async function configuredProviders(config: GatewayConfiguration): Promise<Set<ProviderId>> {
  const configured = new Set<ProviderId>();
  for (const provider of PROVIDER_IDS) if (await platformEndpoint(provider, config)) configured.add(provider);
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

/** Keyed by service id (`openai`, `exa`, ...). */
type PlatformKeys = Partial<Record<string, string>>;

/** The platform keys secret, read at most once per PLATFORM_KEYS_RECHECK_MS; unreadable means none. */
function platformKeys(config: GatewayConfiguration): Promise<PlatformKeys> {
  const secretId = config.platformKeysSecretId;
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
    for (const [service, value] of Object.entries(parsed))
      if (typeof value === 'string' && value !== '') keys[service] = value;
    return keys;
  } catch (error) {
    logger.warn('platform provider keys unreadable', { error: (error as Error).name });
    return {};
  }
}
