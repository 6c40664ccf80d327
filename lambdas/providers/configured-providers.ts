import { PROVIDER_IDS, apiKeyEnvVar, baseUrlEnvVar, type ProviderId } from '../catalog/index.js';
import { ENV, optionalEnv } from '../config/environment.js';
import { logger } from '../http/logger.js';
import { readSecret } from '../store/secret-values.js';

/**
 * The providers this deployment can call with its own (platform) credentials: configured by
 * `<PROVIDER>_API_KEY` / `<PROVIDER>_BASE_URL` locally, or by an entry in the platform keys
 * secret in the cloud (set by the operator after deploy).
 */
export async function configuredProviders(): Promise<Set<ProviderId>> {
  const configured = new Set<ProviderId>();
  for (const provider of PROVIDER_IDS) {
    if (process.env[apiKeyEnvVar(provider)] || process.env[baseUrlEnvVar(provider)]) configured.add(provider);
  }
  for (const provider of await platformKeyProviders()) configured.add(provider);
  return configured;
}

async function platformKeyProviders(): Promise<ProviderId[]> {
  const secretId = optionalEnv(ENV.platformKeysSecretId);
  if (!secretId) return [];
  try {
    const keys = JSON.parse(await readSecret(secretId)) as Record<string, unknown>;
    return PROVIDER_IDS.filter((provider) => typeof keys[provider] === 'string' && keys[provider] !== '');
  } catch (error) {
    logger.warn('platform provider keys unreadable', { error: (error as Error).name });
    return [];
  }
}
