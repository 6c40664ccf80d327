import type { GatewayConfiguration } from '../config/configuration.js';
import { send } from '../providers/http-transport.js';
import { EMBEDDED_CATALOG } from './catalog/theme-catalog.js';
import type { ThemeDeps } from './theme-selection.js';
import type { ThemeProviderClient } from './theme-types.js';
import { upstreamThemeProvider } from './upstream-theme-provider.js';

/** One client per provider URL for the life of the instance, so its catalog cache serves many calls. */
const clients = new Map<string, ThemeProviderClient>();

function clientFor(url: string): ThemeProviderClient {
  let client = clients.get(url);
  if (!client) clients.set(url, (client = upstreamThemeProvider(url, send)));
  return client;
}

/**
 * The theme core's dependencies in a deployment: the upstream provider when
 * THEMES_PROVIDER_URL is set (its catalog kept for a minute), else the embedded catalog; Math.random for the draw.
 */
export function deploymentThemeDeps(config: GatewayConfiguration, signal: AbortSignal): ThemeDeps {
  const url = config.themesProviderUrl;
  return {
    catalog: EMBEDDED_CATALOG,
    provider: url === undefined ? undefined : clientFor(url),
    random: Math.random,
    signal,
  };
}
