import type { SearchOptions, SearchResult } from './search-types.js';

/** What a provider's successful answer says, in the gateway's terms. */
export interface ProviderSearchAnswer {
  readonly results: readonly SearchResult[];
  readonly autoPrompt: string | null;
  /** The provider's own statement of the cost; undefined when it gave none. */
  readonly costMicroUsd?: number;
  readonly requestId?: string;
}

/**
 * One search wire format: the request it sends and how it reads answers. Transport, timeouts,
 * classification by status and metering are the core's, the same for every provider.
 */
export interface SearchAdapter {
  /** Appended to the provider's base URL. */
  readonly path: string;
  headers(apiKey: string): Record<string, string>;
  body(query: string, options: SearchOptions, publishedAfter: string | undefined): unknown;
  /** A 2xx body (parsed JSON) read into results; undefined when it is not a search answer. */
  read(body: unknown, options: SearchOptions): ProviderSearchAnswer | undefined;
  /** The provider's machine-readable error tag in an error body, for logs and messages. */
  errorTag(body: unknown): string | undefined;
}
