import { MEDIA_PROVIDERS } from '../catalog/media-providers.js';
import { platformEndpointOf, type ProviderEndpoint } from '../providers/provider-config.js';
import { FashionError } from './fashion-errors.js';

/**
 * The platform's FASHN endpoint: `FASHN_BASE_URL` / `FASHN_API_KEY` locally, the platform keys
 * secret's `fashn` entry in the cloud. Without a key the fashion service is not configured.
 */
export async function fashionEndpoint(): Promise<ProviderEndpoint> {
  const endpoint = await platformEndpointOf(MEDIA_PROVIDERS.fashn);
  if (!endpoint) throw new FashionError('not_configured', 'Fashion service is not configured (no FASHN key)');
  return endpoint;
}
