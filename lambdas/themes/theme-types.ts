/** docs/interface.md §2.11's platforms: what a design system was written for. */
export const THEME_PLATFORMS = ['desktop-web', 'mobile-app', 'game'] as const;

export type ThemePlatform = (typeof THEME_PLATFORMS)[number];

export const isThemePlatform = (value: string): value is ThemePlatform =>
  (THEME_PLATFORMS as readonly string[]).includes(value);

/** One design system as a catalog holds it: `content` is bare markdown, wrapped only when answered. */
export interface CatalogTheme {
  readonly id: string;
  readonly name: string;
  readonly platform: ThemePlatform;
  /** Relative chance of being drawn among its candidates; positive. */
  readonly weight: number;
  readonly content: string;
}

/** Where an answered theme came from (docs/interface.md §2.11 `source`). */
export interface ThemeSource {
  readonly provider: string;
  readonly url: string;
  readonly theme_url: string;
}

/** docs/interface.md §2.11: the theme as answered, `content` wrapped in `<design-system>`. */
export interface Theme extends CatalogTheme {
  readonly source: ThemeSource;
}

/** A catalog of themes and where it lives; the embedded one and an upstream's have the same shape. */
export interface ThemeCatalog {
  readonly provider: string;
  /** Where the catalog is read from. */
  readonly url: string;
  /** A theme's own URL, `{id}` standing for its id. */
  readonly themeUrlTemplate: string;
  readonly themes: readonly CatalogTheme[];
}

/** An upstream theme provider: fetches its catalog for one call. */
export interface ThemeProviderClient {
  fetchCatalog(signal: AbortSignal): Promise<ThemeCatalog>;
}
