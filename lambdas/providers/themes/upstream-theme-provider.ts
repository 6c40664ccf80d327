import type { TransportRequest, TransportResponse } from '../http-transport.js';
import { ThemeError } from './theme-errors.js';
import { isThemePlatform, type CatalogTheme, type ThemeCatalog, type ThemeProviderClient } from './theme-types.js';

type Send = (request: TransportRequest) => Promise<TransportResponse>;

/** A slow provider must not hold the call: past this, the provider counts as unavailable. */
const UPSTREAM_TIMEOUT_MS = 10_000;

/**
 * A theme provider at `url`: `GET <url>` answers `{provider?, themes:[{id, name, platform,
 * weight, content}]}`. Any non-2xx, unreachable host, timeout or unusable body is
 * `upstream_failed` (spec 4.5's 503); themes that are not well formed are left out.
 */
export function upstreamThemeProvider(url: string, send: Send): ThemeProviderClient {
  return {
    async fetchCatalog(signal) {
      const body = await fetchBody(url, send, signal);
      return catalogOf(url, body);
    },
  };
}

async function fetchBody(url: string, send: Send, signal: AbortSignal): Promise<unknown> {
  try {
    const response = await send({
      url,
      method: 'GET',
      headers: { accept: 'application/json' },
      signal: AbortSignal.any([signal, AbortSignal.timeout(UPSTREAM_TIMEOUT_MS)]),
    });
    const text = await response.text();
    if (response.status < 200 || response.status > 299) {
      throw new ThemeError('upstream_failed', `theme provider answered ${response.status}`);
    }
    return JSON.parse(text) as unknown;
  } catch (error) {
    if (error instanceof ThemeError) throw error;
    throw new ThemeError('upstream_failed', 'theme provider unreachable or its answer unreadable');
  }
}

function catalogOf(url: string, body: unknown): ThemeCatalog {
  const record = body as { provider?: unknown; themes?: unknown } | null;
  if (!record || typeof record !== 'object' || !Array.isArray(record.themes)) {
    throw new ThemeError('upstream_failed', 'theme provider answered without a themes list');
  }
  const base = url.replace(/\/+$/, '');
  return {
    provider: typeof record.provider === 'string' ? record.provider : new URL(url).host,
    url: base,
    themeUrlTemplate: `${base}/{id}`,
    themes: record.themes.filter(isCatalogTheme),
  };
}

function isCatalogTheme(value: unknown): value is CatalogTheme {
  const theme = value as Partial<Record<keyof CatalogTheme, unknown>> | null;
  return (
    !!theme &&
    typeof theme.id === 'string' &&
    typeof theme.name === 'string' &&
    typeof theme.content === 'string' &&
    typeof theme.platform === 'string' &&
    isThemePlatform(theme.platform) &&
    typeof theme.weight === 'number' &&
    Number.isFinite(theme.weight) &&
    theme.weight > 0
  );
}
