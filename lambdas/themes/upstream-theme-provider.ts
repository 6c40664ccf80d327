import type { TransportRequest, TransportResponse } from '../providers/http-transport.js';
import { ThemeError } from './theme-errors.js';
import { isThemePlatform, type CatalogTheme, type ThemeCatalog, type ThemeProviderClient } from './theme-types.js';

type Send = (request: TransportRequest) => Promise<TransportResponse>;

/** A slow provider must not hold the call: past this, the provider counts as unavailable. */
const UPSTREAM_TIMEOUT_MS = 10_000;
/**
 * A catalog is a few dozen markdown documents (the embedded one is about 40 KB); a provider
 * answering more than this is refused as unusable rather than read into memory without end.
 */
export const MAX_CATALOG_BYTES = 4 * 1024 * 1024;

export interface UpstreamThemeOptions {
  /** How long a catalog read stands before the provider is asked again; 0 asks every time. */
  readonly cacheMs?: number;
  readonly now?: () => number;
}

/** A catalog changes rarely; asking once a minute keeps a provider round trip off most calls. */
export const DEFAULT_CATALOG_CACHE_MS = 60_000;

/**
 * A theme provider at `url`: `GET <url>` answers `{provider?, themes:[{id, name, platform,
 * weight, content}]}`. Any non-2xx, unreachable host, timeout or unusable body is
 * `upstream_failed` (docs/interface.md §4.5's 503); themes that are not well formed are left out. A catalog
 * read is kept for `cacheMs`; failures are not kept, so the next call asks again.
 */
export function upstreamThemeProvider(
  url: string,
  send: Send,
  { cacheMs = DEFAULT_CATALOG_CACHE_MS, now = Date.now }: UpstreamThemeOptions = {},
): ThemeProviderClient {
  let kept: { catalog: ThemeCatalog; until: number } | undefined;
  return {
    async fetchCatalog(signal) {
      if (kept && kept.until > now()) return kept.catalog;
      const catalog = catalogOf(url, await fetchBody(url, send, signal));
      if (cacheMs > 0) kept = { catalog, until: now() + cacheMs };
      return catalog;
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
    // Read (bounded) before judging the status, so the keep-alive connection is free again.
    const text = await boundedText(response);
    if (response.status < 200 || response.status > 299) {
      throw new ThemeError('upstream_failed', `theme provider answered ${response.status}`);
    }
    return JSON.parse(text) as unknown;
  } catch (error) {
    if (error instanceof ThemeError) throw error;
    throw new ThemeError('upstream_failed', 'theme provider unreachable or its answer unreadable');
  }
}

async function boundedText(response: TransportResponse): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of response.body) {
    bytes += chunk.length;
    if (bytes > MAX_CATALOG_BYTES) {
      throw new ThemeError('upstream_failed', `theme provider answered more than ${MAX_CATALOG_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
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
