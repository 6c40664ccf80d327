import type { SearchProviderId } from '../catalog/model-catalog.js';

/**
 * Web search in the gateway's own terms, shared by the search endpoint and the arena's
 * web_search tool: what is asked, what comes back, and what one upstream call cost.
 */

/** `neural` and `keyword` are the provider's legacy names, still accepted; `auto` lets it choose. */
export const SEARCH_TYPES = ['neural', 'keyword', 'auto'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export interface SearchOptions {
  /** 1 to MAX_RESULTS. */
  readonly numResults: number;
  readonly type: SearchType;
  /** Ask the provider for a summary per result (billed per result); the snippet is then the summary. */
  readonly includeSummary: boolean;
  /** `<N><d|w|m|y>`: only results published within that span before now. */
  readonly recency?: string;
}

export const MAX_QUERY_CHARS = 1000;
export const MAX_RESULTS = 25;
export const MAX_SNIPPET_CHARS = 500;

export const DEFAULT_SEARCH_OPTIONS: SearchOptions = Object.freeze({
  numResults: 10,
  type: 'neural',
  includeSummary: true,
});

export interface SearchResult {
  readonly url: string;
  readonly title: string;
  /** At most MAX_SNIPPET_CHARS: the summary when asked for, else highlights or text, cut on a word boundary. */
  readonly snippet: string;
  /** 0 to 1: the provider's score, or, when it gives none, derived from the rank (see README "Search"). */
  readonly score: number;
  readonly publishedDate: string | null;
  readonly author: string | null;
  readonly favicon: string | null;
}

export interface SearchAnswer {
  readonly query: string;
  readonly results: readonly SearchResult[];
  /** The provider's rewritten query, when it returned one; null otherwise. */
  readonly autoPrompt: string | null;
  readonly costMicroUsd: number;
  /** The provider's own id for the search, when it gave one. */
  readonly providerRequestId?: string;
}

/**
 * One upstream search call as the ledger sees it, reported whether it succeeded or not, so
 * that every call is metered exactly once.
 */
export interface SearchAttempt {
  readonly provider: SearchProviderId;
  readonly type: SearchType;
  /** The upstream's HTTP status; 0 when none was received. */
  readonly status: number;
  /** `ok`, or the failure class (`rate_limit`, `overload`, `timeout`, ...). */
  readonly outcome: string;
  readonly costMicroUsd: number;
  /** True when the provider stated no cost and the catalog's list price was used. */
  readonly estimated: boolean;
  readonly results: number;
}
