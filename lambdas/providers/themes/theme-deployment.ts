import { ENV, optionalEnv } from '../../config/environment.js';
import { send } from '../http-transport.js';
import { EMBEDDED_CATALOG } from './catalog/index.js';
import type { ThemeDeps } from './theme-selection.js';
import { upstreamThemeProvider } from './upstream-theme-provider.js';

/**
 * The theme core's dependencies in a deployment: the upstream provider when
 * THEMES_PROVIDER_URL is set, else the embedded catalog; Math.random for the draw.
 */
export function deploymentThemeDeps(signal: AbortSignal): ThemeDeps {
  const url = optionalEnv(ENV.themesProviderUrl);
  return {
    catalog: EMBEDDED_CATALOG,
    provider: url === undefined ? undefined : upstreamThemeProvider(url, send),
    random: Math.random,
    signal,
  };
}
