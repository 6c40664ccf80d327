/**
 * The upstream web-search providers and their prices. Data only, like providers.ts: the
 * search adapter reads the wire format, configuration reads `<envStem>_BASE_URL` and
 * `<envStem>_API_KEY` (or the platform keys secret's entry named by `id`).
 */

export const SEARCH_PROVIDER_IDS = ['exa'] as const;

export type SearchProviderId = (typeof SEARCH_PROVIDER_IDS)[number];

/** The request/response dialect of a provider's search endpoint. */
export type SearchWireFormat = 'exa';

/**
 * List prices in integer micro-USD, used only when the provider's answer states no cost
 * (the entry is then flagged `estimated`).
 */
export interface SearchPrice {
  /** One search returning up to `includedResults` results, text and highlights included. */
  readonly perSearch: number;
  readonly includedResults: number;
  /** Each result beyond `includedResults`. */
  readonly perExtraResult: number;
  /** Each result that carries a summary. */
  readonly perSummary: number;
}

export interface SearchProviderInfo {
  readonly id: SearchProviderId;
  readonly name: string;
  readonly wireFormat: SearchWireFormat;
  /** Exactly as in the upstream reference (docs/upstreams.md §0.2); the adapter appends `/search`. */
  readonly defaultBaseUrl: string;
  readonly envStem: string;
  readonly price: SearchPrice;
}

export const SEARCH_PROVIDERS: Readonly<Record<SearchProviderId, SearchProviderInfo>> = Object.freeze({
  // Prices from March 2026 (docs/upstreams.md §5.7): $7 per 1,000 searches of 10 results,
  // $1 per 1,000 extra results, $1 per 1,000 summaries.
  exa: Object.freeze({
    id: 'exa',
    name: 'Exa',
    wireFormat: 'exa',
    defaultBaseUrl: 'https://api.exa.ai',
    envStem: 'EXA',
    price: Object.freeze({ perSearch: 7_000, includedResults: 10, perExtraResult: 1_000, perSummary: 1_000 }),
  }),
});

/** The provider the search endpoint and the arena's web_search tool use. */
export const DEFAULT_SEARCH_PROVIDER: SearchProviderId = 'exa';
