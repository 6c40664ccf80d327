import { createHash, randomUUID } from 'node:crypto';
import type { SimExchange, SimResponse, SimulatorDefinition } from './harness.js';
import { json } from './openai-compatible-simulator.js';

/**
 * The Exa fake (upstreams.md §5 and its Simulator checklist): `POST /search` answering
 * deterministically from the query, as Exa's current API does (§5.7): no `score` unless the
 * type is `neural`, no `autopromptString`, no `resolvedSearchType`. Results honour
 * `numResults`, `startPublishedDate`/`endPublishedDate` and `contents` (only the content
 * fields asked for; `text` cut to `maxCharacters`); `costDollars` carries only non-zero parts,
 * at the March 2026 prices. Errors are `{requestId, error, tag}`; 429 and 503 carry
 * `Retry-After: 1`. Auth: `x-api-key` (or `Authorization: Bearer`); a missing key, or one
 * starting `bad`/`invalid`, is a 401.
 *
 * Directives in the query: `[sim:results=N]` returns at most N results (fewer than asked, as
 * a narrow query does); `[sim:no_cost]` leaves `costDollars` out; `[sim:autoprompt]` adds the
 * legacy `autopromptString`; `[sim:html_error]` answers 502 with a proxy's HTML page.
 */

const DOMAINS = ['example.org', 'news.example.com', 'blog.example.net', 'docs.example.dev', 'research.example.edu'];
const AUTHORS = ['J. Doe', 'A. Rivera', 'M. Chen', null, 'S. Okafor'];
const DAY_MS = 86_400_000;
/** Results without a start date are spread over the two years before now. */
const DEFAULT_SPAN_MS = 730 * DAY_MS;
const MAX_NUM_RESULTS = 100;

const PRICE = { search: 0.007, includedResults: 10, perExtraResult: 0.001, perSummary: 0.001 };

interface SearchBody {
  query?: unknown;
  type?: unknown;
  numResults?: unknown;
  startPublishedDate?: unknown;
  endPublishedDate?: unknown;
  contents?: { text?: unknown; highlights?: unknown; summary?: unknown };
}

export const exaSimulator: SimulatorDefinition = {
  name: 'exa',
  routes: [{ method: 'POST', path: /^\/search$/, faultable: true, handle: (x) => x.send(searchAnswer(x)) }],
  modelOf: ({ body }) => {
    const type = (body as SearchBody | undefined)?.type;
    return typeof type === 'string' ? type : 'auto';
  },
  errorFor: (status) =>
    exaError(status, TAGS[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_REQUEST'), `injected ${status}`),
  authenticate(x) {
    const bearer = /^Bearer (.+)$/.exec(String(x.headers.authorization ?? ''))?.[1];
    const key = String(x.headers['x-api-key'] ?? '') || bearer;
    if (!key || /^(bad|invalid)/.test(key)) return exaError(401, 'INVALID_API_KEY', 'Invalid or missing API key');
    return undefined;
  },
};

const TAGS: Readonly<Record<number, string>> = {
  400: 'INVALID_REQUEST_BODY',
  402: 'NO_MORE_CREDITS',
  403: 'ACCESS_DENIED',
  429: 'RATE_LIMIT_EXCEEDED',
  503: 'SERVICE_OVERLOADED',
};

function exaError(status: number, tag: string, error: string): SimResponse {
  return json(
    status,
    { requestId: simRequestId(), error, tag },
    status === 429 || status === 503 ? { 'retry-after': '1' } : {},
  );
}

function searchAnswer(x: SimExchange): SimResponse {
  const body = x.body as SearchBody | undefined;
  if (!body || typeof body.query !== 'string' || body.query.trim() === '')
    return exaError(400, 'INVALID_REQUEST_BODY', 'Invalid request body: query is required');
  const numResults = body.numResults ?? 10;
  if (typeof numResults !== 'number' || !Number.isInteger(numResults) || numResults < 1)
    return exaError(400, 'INVALID_NUM_RESULTS', 'numResults must be a positive integer');
  if (numResults > MAX_NUM_RESULTS)
    return exaError(400, 'NUM_RESULTS_EXCEEDED', `numResults must be at most ${MAX_NUM_RESULTS}`);
  const query = body.query;
  if (query.includes('[sim:html_error]'))
    return {
      status: 502,
      headers: { 'Content-Type': 'text/html' },
      body: '<html><body><h1>502 Bad Gateway</h1></body></html>',
    };
  const limit = Number(/\[sim:results=(\d{1,3})\]/.exec(query)?.[1] ?? numResults);
  const count = Math.min(numResults, limit);
  const type = typeof body.type === 'string' ? body.type : 'auto';
  const window = publishedWindow(body);
  const results = Array.from({ length: count }, (_, rank) => result(query, rank, type, window, body.contents ?? {}));
  const summaries = results.filter((r) => 'summary' in r).length;
  return json(200, {
    requestId: simRequestId(),
    searchTime: 100 + (hash(query, 'time') % 900),
    results,
    ...(query.includes('[sim:no_cost]') ? {} : { costDollars: cost(type, count, summaries) }),
    ...(query.includes('[sim:autoprompt]') ? { autopromptString: `${plain(query)} (rewritten)` } : {}),
  });
}

function result(
  query: string,
  rank: number,
  type: string,
  window: { from: number; to: number },
  contents: SearchBody['contents'] & object,
) {
  const words = plain(query);
  const seed = hash(query, String(rank));
  const domain = DOMAINS[seed % DOMAINS.length]!;
  const slug =
    words
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60) || 'page';
  const url = `https://${domain}/${slug}-${rank + 1}`;
  const published = new Date(window.from + ((seed % 10_000) / 10_000) * (window.to - window.from));
  const text = `${words}: article ${rank + 1} on ${domain}. `.repeat(40);
  const author = AUTHORS[seed % AUTHORS.length];
  return {
    id: url,
    url,
    title: `${words} — result ${rank + 1}`,
    publishedDate: `${published.toISOString().slice(0, 10)}T00:00:00.000Z`,
    ...(author ? { author } : {}),
    // Exa scores only neural searches since July 2025; scores fall with the rank.
    ...(type === 'neural' ? { score: Math.round((0.9 - rank * 0.02) * 1000) / 1000 } : {}),
    favicon: `https://${domain}/favicon.ico`,
    ...(contents.text ? { text: text.slice(0, maxCharacters(contents.text, 10_000)) } : {}),
    ...(contents.highlights
      ? { highlights: [`The key finding about ${words} is set out in section ${rank + 1}.`] }
      : {}),
    ...(contents.summary ? { summary: `This page explains ${words} (source ${rank + 1}, ${domain}).` } : {}),
  };
}

function maxCharacters(option: unknown, fallback: number): number {
  const max = (option as { maxCharacters?: unknown }).maxCharacters;
  return typeof max === 'number' && max > 0 ? max : fallback;
}

function publishedWindow(body: SearchBody): { from: number; to: number } {
  const to = dateOr(body.endPublishedDate, Date.now());
  const from = Math.min(dateOr(body.startPublishedDate, to - DEFAULT_SPAN_MS), to);
  return { from, to };
}

function dateOr(value: unknown, fallback: number): number {
  const time = typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isNaN(time) ? fallback : time;
}

/** Only non-zero components, as Exa reports them. */
function cost(type: string, count: number, summaries: number) {
  const extra = Math.max(0, count - PRICE.includedResults) * PRICE.perExtraResult;
  const summary = summaries * PRICE.perSummary;
  const total = Math.round((PRICE.search + extra + summary) * 1e6) / 1e6;
  return {
    total,
    search: { [type === 'keyword' ? 'keyword' : 'neural']: Math.round((PRICE.search + extra) * 1e6) / 1e6 },
    ...(summary > 0 ? { contents: { summary: Math.round(summary * 1e6) / 1e6 } } : {}),
  };
}

/** The query without directives. */
function plain(query: string): string {
  return (
    query
      .replace(/\[sim:[^\]]*\]/g, '')
      .replace(/\s+/g, ' ')
      .trim() || 'search'
  );
}

function hash(...parts: string[]): number {
  return createHash('sha256').update(parts.join('\n')).digest().readUInt32BE(0);
}

const simRequestId = () => randomUUID().replaceAll('-', '');
