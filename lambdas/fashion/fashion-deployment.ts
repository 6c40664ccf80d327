import type { ProviderEndpoint } from '../providers/provider-config.js';
import { FashionError } from './fashion-errors.js';

/**
 * The platform's FASHN endpoint (`FASHN_BASE_URL` / `FASHN_API_KEY` locally, the platform keys
 * secret's `fashn` entry in the cloud), or FashionError `not_configured`: without a key the
 * fashion service is not configured.
 */
export function configuredFashion(endpoint: ProviderEndpoint | undefined): ProviderEndpoint {
  if (!endpoint) throw new FashionError('not_configured', 'Fashion service is not configured (no FASHN key)');
  return endpoint;
}
