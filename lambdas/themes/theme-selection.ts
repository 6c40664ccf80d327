import { ThemeError } from './theme-errors.js';
import {
  isThemePlatform,
  THEME_PLATFORMS,
  type CatalogTheme,
  type Theme,
  type ThemeCatalog,
  type ThemePlatform,
  type ThemeProviderClient,
} from './theme-types.js';

export interface ThemeQuery {
  readonly id?: string;
  readonly platform?: string;
}

export interface ThemeDeps {
  /** The embedded catalog: answers when no provider is configured. */
  readonly catalog: ThemeCatalog;
  /** A configured upstream provider; its catalog replaces the embedded one. */
  readonly provider?: ThemeProviderClient;
  /** Uniform in [0, 1); seedable in tests. */
  readonly random: () => number;
  readonly signal: AbortSignal;
}

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/**
 * docs/interface.md §4.5. `id` takes precedence (unknown: not_found) and `platform` is then
 * ignored. Otherwise the selection rule: with a `platform`, the candidates are that platform's
 * themes (all themes if the catalog has none for it); without one, every theme. A candidate is
 * drawn with probability weight / sum of weights. The query is checked before any upstream call.
 */
export async function chooseTheme(query: ThemeQuery, deps: ThemeDeps): Promise<Theme> {
  const id = checkedId(query.id);
  // docs/interface.md §4.5: with an id, platform is ignored (not even checked).
  const platform = id === undefined ? checkedPlatform(query.platform) : undefined;
  const catalog = deps.provider ? await deps.provider.fetchCatalog(deps.signal) : deps.catalog;
  const theme = id === undefined ? drawTheme(candidatesFor(catalog.themes, platform), deps.random) : byId(catalog, id);
  return answered(theme, catalog);
}

function checkedPlatform(platform: string | undefined): ThemePlatform | undefined {
  if (platform === undefined) return undefined;
  if (!isThemePlatform(platform)) {
    throw new ThemeError('invalid_request', `platform must be one of ${THEME_PLATFORMS.join(', ')}`, {
      field: 'platform',
    });
  }
  return platform;
}

function checkedId(id: string | undefined): string | undefined {
  if (id === undefined) return undefined;
  if (!SLUG.test(id)) {
    throw new ThemeError('invalid_request', 'id must be a slug: lower-case letters, digits and hyphens', {
      field: 'id',
    });
  }
  return id;
}

function byId(catalog: ThemeCatalog, id: string): CatalogTheme {
  const theme = catalog.themes.find((candidate) => candidate.id === id);
  if (!theme) throw new ThemeError('not_found', `theme id ${id} not found`, { field: 'id' });
  return theme;
}

function candidatesFor(themes: readonly CatalogTheme[], platform: ThemePlatform | undefined): readonly CatalogTheme[] {
  const onPlatform = platform === undefined ? themes : themes.filter((theme) => theme.platform === platform);
  return onPlatform.length > 0 ? onPlatform : themes;
}

/** A weighted draw: walks the cumulative weights to the point `random()` lands on. */
export function drawTheme(candidates: readonly CatalogTheme[], random: () => number): CatalogTheme {
  if (candidates.length === 0) throw new ThemeError('not_found', 'the theme catalog is empty');
  const total = candidates.reduce((sum, theme) => sum + theme.weight, 0);
  let point = random() * total;
  for (const theme of candidates) {
    point -= theme.weight;
    if (point < 0) return theme;
  }
  // random() may return values that round up to the total; the last candidate owns that edge.
  return candidates[candidates.length - 1]!;
}

function answered(theme: CatalogTheme, catalog: ThemeCatalog): Theme {
  return {
    id: theme.id,
    name: theme.name,
    platform: theme.platform,
    weight: theme.weight,
    content: `<design-system>\n${theme.content.trim()}\n</design-system>`,
    source: {
      provider: catalog.provider,
      url: catalog.url,
      theme_url: catalog.themeUrlTemplate.replace('{id}', encodeURIComponent(theme.id)),
    },
  };
}
