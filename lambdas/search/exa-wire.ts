import type { ProviderSearchAnswer, SearchAdapter } from './search-adapter.js';
import type { SearchOptions, SearchResult } from './search-types.js';
import { cutOnWordBoundary } from './snippet.js';

/**
 * Exa's `POST /search` (docs/upstreams.md §5). The request asks for highlights and a little text
 * (both included in the search price) so that every result has a snippet, and for a summary
 * only when the caller wants one (billed per result). Exa's current API no longer returns
 * `autopromptString`, nor a `score` for `auto` searches (docs/upstreams.md §5.7): both are read when present.
 */

/** Enough text for a 500-character snippet after whitespace is collapsed. */
const TEXT_CHARS = 1_000;
const HIGHLIGHT_CHARS = 500;

interface ExaResult {
  url?: unknown;
  title?: unknown;
  publishedDate?: unknown;
  author?: unknown;
  score?: unknown;
  favicon?: unknown;
  text?: unknown;
  highlights?: unknown;
  summary?: unknown;
}

export const exaAdapter: SearchAdapter = {
  path: '/search',
  headers: (apiKey) => ({ 'x-api-key': apiKey, 'content-type': 'application/json', accept: 'application/json' }),
  body: (query, options, publishedAfter) => ({
    query,
    type: options.type,
    numResults: options.numResults,
    ...(publishedAfter ? { startPublishedDate: publishedAfter } : {}),
    contents: {
      text: { maxCharacters: TEXT_CHARS },
      highlights: { maxCharacters: HIGHLIGHT_CHARS },
      ...(options.includeSummary ? { summary: true } : {}),
    },
  }),
  read: readAnswer,
  errorTag: (body) => {
    const tag = asRecord(body)?.['tag'];
    return typeof tag === 'string' ? tag.slice(0, 100) : undefined;
  },
};

function readAnswer(body: unknown, options: SearchOptions): ProviderSearchAnswer | undefined {
  const answer = asRecord(body);
  if (!answer || !Array.isArray(answer['results'])) return undefined;
  const listed = (answer['results'] as unknown[])
    .map((result) => asRecord(result) as ExaResult | undefined)
    .filter((result): result is ExaResult => typeof result?.url === 'string' && /^https?:\/\//.test(result.url))
    .slice(0, options.numResults);
  const results = listed.map((result, rank) => toResult(result, rank, listed.length, options));
  const total = asRecord(answer['costDollars'])?.['total'];
  const requestId = answer['requestId'];
  return {
    results,
    autoPrompt: textOrNull(answer['autopromptString']),
    ...(typeof total === 'number' && Number.isFinite(total) && total >= 0
      ? { costMicroUsd: Math.round(total * 1e6) }
      : {}),
    ...(typeof requestId === 'string' ? { requestId: requestId.slice(0, 200) } : {}),
  };
}

function toResult(result: ExaResult, rank: number, count: number, options: SearchOptions): SearchResult {
  const url = result.url as string;
  return {
    url,
    title: textOrNull(result.title) ?? url,
    snippet: cutOnWordBoundary(snippetSource(result, options)),
    score: scoreOf(result.score, rank, count),
    publishedDate: textOrNull(result.publishedDate),
    author: textOrNull(result.author),
    favicon: textOrNull(result.favicon),
  };
}

/** The summary when asked for, else the highlights, else the page text. */
function snippetSource(result: ExaResult, options: SearchOptions): string {
  const summary = textOrNull(result.summary);
  if (options.includeSummary && summary) return summary;
  const highlights = Array.isArray(result.highlights)
    ? result.highlights.filter((h): h is string => typeof h === 'string' && h.trim() !== '')
    : [];
  if (highlights.length > 0) return highlights.join(' … ');
  return textOrNull(result.text) ?? summary ?? '';
}

/**
 * The provider's score, clamped to 0..1; without one (Exa's `auto` and `keyword` searches),
 * the rank: 1 for the first result, then down in equal steps of 1/count.
 */
function scoreOf(score: unknown, rank: number, count: number): number {
  if (typeof score === 'number' && Number.isFinite(score)) return Math.min(1, Math.max(0, score));
  return Math.round(((count - rank) / count) * 1000) / 1000;
}

function textOrNull(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
