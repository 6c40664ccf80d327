import { SEARCH_PROVIDERS } from '../catalog/model-catalog.js';
import type { GatewayConfiguration } from '../config/configuration.js';
import { send } from '../providers/http-transport.js';
import { platformEndpointOf } from '../providers/provider-config.js';
import type { SearchDeps } from './web-search.js';

/**
 * The search core's dependencies in a deployment: the platform's key for the provider
 * (`EXA_API_KEY` locally, the platform keys secret's `exa` entry in the cloud), real HTTP,
 * the real clock. Callers' own provider keys do not apply to search.
 */
export function deploymentSearchDeps(config: GatewayConfiguration): SearchDeps {
  return {
    endpoint: (provider) => platformEndpointOf(SEARCH_PROVIDERS[provider], config),
    send,
    now: () => new Date(),
  };
}
