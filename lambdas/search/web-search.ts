import {
  DEFAULT_SEARCH_PROVIDER,
  SEARCH_PROVIDERS,
  type SearchPrice,
  type SearchProviderId,
  type SearchWireFormat,
} from '../catalog/model-catalog.js';
import type { TransportRequest, TransportResponse } from '../providers/http-transport.js';
import type { ProviderEndpoint } from '../providers/provider-config.js';
import { retryAfterFromHeaders, UpstreamError } from '../providers/upstream-failure.js';
import { exaAdapter } from './exa-wire.js';
import type { ProviderSearchAnswer, SearchAdapter } from './search-adapter.js';
import { SearchError } from './search-errors.js';
import { checkSearch, publishedAfter } from './search-request.js';
import type { SearchAnswer, SearchAttempt, SearchOptions } from './search-types.js';

/**
 * One web search, transport-free: the endpoint, the transport and the clock come in as
 * dependencies; the answer is typed results, a failure a SearchError. Every upstream call
 * that was made is reported once through `onAttempt` (answered or not), for the ledger.
 * No retries: a search is cheap to ask again, and the caller (a person or a model) decides.
 */

/** Each search wire format the catalog names, by its adapter (search-adapter.ts is the contract). */
const SEARCH_ADAPTERS: Readonly<Record<SearchWireFormat, SearchAdapter>> = { exa: exaAdapter };

export interface SearchDeps {
  /** The provider's endpoint and key; undefined when the deployment has none. */
  endpoint(provider: SearchProviderId): Promise<ProviderEndpoint | undefined>;
  send(request: TransportRequest): Promise<TransportResponse>;
  now(): Date;
}

export interface SearchContext {
  readonly signal: AbortSignal;
  /** Per search, headers and body together. */
  readonly timeoutMs?: number;
  readonly provider?: SearchProviderId;
  readonly onAttempt?: (attempt: SearchAttempt) => void;
  /**
   * Before the upstream call, given the search's greatest cost at list price: may refuse it (a
   * budget that cannot hold it throws). @default every search goes
   */
  readonly admit?: (boundMicroUsd: number) => Promise<void>;
}

export const DEFAULT_SEARCH_TIMEOUT_MS = 15_000;
/** An answer of 25 results with summaries is tens of kilobytes; anything far larger is not one. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** Retry-After sent to the caller when the provider limits without saying for how long. */
const DEFAULT_RETRY_AFTER_MS = 1_000;

export async function search(
  query: string,
  options: SearchOptions,
  context: SearchContext,
  deps: SearchDeps,
): Promise<SearchAnswer> {
  checkSearch(query, options);
  const since = options.recency === undefined ? undefined : publishedAfter(options.recency, deps.now());
  const provider = SEARCH_PROVIDERS[context.provider ?? DEFAULT_SEARCH_PROVIDER];
  const endpoint = await deps.endpoint(provider.id);
  if (!endpoint) throw new SearchError('not_configured', 'Search is not configured on this deployment');
  const adapter = SEARCH_ADAPTERS[provider.wireFormat];
  const report = (status: number, outcome: string, cost?: { microUsd: number; estimated: boolean }, results = 0) =>
    context.onAttempt?.({
      provider: provider.id,
      type: options.type,
      status,
      outcome,
      costMicroUsd: cost?.microUsd ?? 0,
      estimated: cost?.estimated ?? false,
      results,
    });

  await context.admit?.(searchCostBoundMicroUsd(options, provider.price));
  const timeout = AbortSignal.timeout(context.timeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS);
  const signal = AbortSignal.any([context.signal, timeout]);
  let reply: { status: number; headers: TransportResponse['headers']; body: unknown };
  try {
    const response = await deps.send({
      url: `${endpoint.baseUrl}${adapter.path}`,
      method: 'POST',
      headers: adapter.headers(endpoint.apiKey),
      body: JSON.stringify(adapter.body(query, options, since)),
      signal,
    });
    reply = { status: response.status, headers: response.headers, body: await readJson(response) };
  } catch (error) {
    if (context.signal.aborted) {
      report(0, 'client_closed');
      throw context.signal.reason;
    }
    const outcome = timeout.aborted ? 'timeout' : outcomeOf(error);
    report(0, outcome);
    throw new SearchError('upstream_failed', `The search provider did not answer (${outcome})`);
  }

  if (reply.status === 429) {
    report(429, 'rate_limit');
    const retryAfterMs = retryAfterFromHeaders(reply.headers) ?? DEFAULT_RETRY_AFTER_MS;
    throw new SearchError('rate_limited', 'The search provider is rate limiting this deployment', { retryAfterMs });
  }
  if (reply.status < 200 || reply.status >= 300) {
    report(reply.status, reply.status >= 500 ? 'overload' : 'upstream_error');
    const tag = adapter.errorTag(reply.body);
    throw new SearchError('upstream_failed', `The search provider answered ${reply.status}${tag ? ` (${tag})` : ''}`);
  }
  const answer = adapter.read(reply.body, options);
  if (!answer) {
    report(reply.status, 'malformed');
    throw new SearchError('upstream_failed', 'The search provider answered something that is not a search result');
  }
  const cost = costOf(answer, options, provider.price);
  report(reply.status, 'ok', cost, answer.results.length);
  return {
    query,
    results: answer.results,
    autoPrompt: answer.autoPrompt,
    costMicroUsd: cost.microUsd,
    ...(answer.requestId ? { providerRequestId: answer.requestId } : {}),
  };
}

/**
 * The most a search of `options` costs at list price: every result it may return, each with its
 * summary when asked. The provider's own stated cost, when it gives one, is what is metered.
 */
export function searchCostBoundMicroUsd(options: SearchOptions, price: SearchPrice): number {
  const extra = Math.max(0, options.numResults - price.includedResults) * price.perExtraResult;
  const summaries = options.includeSummary ? options.numResults * price.perSummary : 0;
  return price.perSearch + extra + summaries;
}

/** The provider's stated cost, else the catalog's list price for what was returned. */
function costOf(answer: ProviderSearchAnswer, options: SearchOptions, price: SearchPrice) {
  if (answer.costMicroUsd !== undefined) return { microUsd: answer.costMicroUsd, estimated: false };
  const count = answer.results.length;
  const extra = Math.max(0, count - price.includedResults) * price.perExtraResult;
  const summaries = options.includeSummary ? count * price.perSummary : 0;
  return { microUsd: price.perSearch + extra + summaries, estimated: true };
}

/** The body as JSON, or undefined when it is empty, not JSON (a proxy's HTML page) or far too large. */
async function readJson(response: TransportResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) return undefined;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

function outcomeOf(error: unknown): string {
  return error instanceof UpstreamError ? error.failure.kind : 'connection';
}
