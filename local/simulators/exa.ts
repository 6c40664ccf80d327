import { createHash, randomUUID } from 'node:crypto';
import type { SimExchange, SimResponse, SimulatorDefinition } from './harness.js';
import { json } from './openai-compatible-simulator.js';

/**
 * The Exa fake (docs/upstreams.md §5 and its Simulator checklist): `POST /search` answering
 * deterministically from the query, as Exa's current API does (docs/upstreams.md §5.7): no `score` unless the
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
 *
 * `stream: true` on `/search` answers data-only SSE: OpenAI-style chunks whose
 * `choices[0].delta.content` carry a short digest of the results, then a chunk with the
 * `citations` (the results), then `data: [DONE]` (docs/upstreams.md §5.5).
 *
 * `POST /contents` `{ids | urls, text?, highlights?, summary?}` (at most 100) answers a 200 with
 * a result per page it could fetch and a `statuses[]` entry per id; a page fails, deterministically
 * from its URL, when the URL is not http(s) (`SOURCE_NOT_AVAILABLE`), or contains `notfound`
 * (`CRAWL_NOT_FOUND`, 404) or `timeout` (`CRAWL_TIMEOUT`, 408). No content field asked means text,
 * as the SDK asks by default; `costDollars.contents` charges each asked field per fetched page.
 *
 * QPS limits (harness + limits.ts): 10 on `/search` (route name `search`) and 100 on `/contents`
 * (`contents`) over a sliding second; over it, a 429 `RATE_LIMIT_EXCEEDED` with `Retry-After: 1`.
 * `POST /__sim/limits {"qps": N | null, "route"?: "search" | "contents"}` raises or lifts them.
 */

const DOMAINS = ['example.org', 'news.example.com', 'blog.example.net', 'docs.example.dev', 'research.example.edu'];
const AUTHORS = ['J. Doe', 'A. Rivera', 'M. Chen', null, 'S. Okafor'];
const DAY_MS = 86_400_000;
/** Results without a start date are spread over the two years before now. */
const DEFAULT_SPAN_MS = 730 * DAY_MS;
const MAX_NUM_RESULTS = 100;

const PRICE = { search: 0.007, includedResults: 10, perExtraResult: 0.001, perSummary: 0.001, perPage: 0.001 };
const MAX_CONTENTS_IDS = 100;
/** Exa's default limits (docs/upstreams.md §5.6). */
const QPS = { search: 10, contents: 100 };
const CONTENT_FIELDS = ['text', 'highlights', 'summary'] as const;

interface SearchBody {
  query?: unknown;
  type?: unknown;
  numResults?: unknown;
  startPublishedDate?: unknown;
  endPublishedDate?: unknown;
  stream?: unknown;
  contents?: ContentOptions;
}

type ContentOptions = { [field in (typeof CONTENT_FIELDS)[number]]?: unknown };

interface ContentsBody extends ContentOptions {
  ids?: unknown;
  urls?: unknown;
}

interface Window {
  from: number;
  to: number;
}

export const exaSimulator: SimulatorDefinition = {
  name: 'exa',
  routes: [
    {
      method: 'POST',
      path: /^\/search$/,
      faultable: true,
      limit: { name: 'search', qps: QPS.search },
      handle: (x) => answerSearch(x),
    },
    {
      method: 'POST',
      path: /^\/contents$/,
      faultable: true,
      limit: { name: 'contents', qps: QPS.contents },
      handle: (x) => x.send(contentsAnswer(x)),
    },
  ],
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
  overLimit: (qps) =>
    exaError(429, 'RATE_LIMIT_EXCEEDED', `You've exceeded your rate limit of ${qps} requests per second`),
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

async function answerSearch(x: SimExchange): Promise<void> {
  const body = x.body as SearchBody | undefined;
  const refusal = searchRefusal(body);
  if (refusal) return x.send(refusal);
  const query = (body as SearchBody & { query: string }).query;
  const answer = searchData(body!, query);
  if (body!.stream === true) return streamSearch(x, plain(query), answer.results);
  return x.send(json(200, answer));
}

/** OpenAI-style chunks: a digest of the results as content, then the citations, then [DONE]. */
async function streamSearch(x: SimExchange, words: string, results: readonly Page[]): Promise<void> {
  const stream = await x.stream();
  const id = simRequestId();
  const chunk = (fields: object) => JSON.stringify({ id, object: 'chat.completion.chunk', ...fields });
  const delta = (content: string) => chunk({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });
  const pieces = [`Found ${results.length} results for ${words}.`, ...results.map((r, i) => ` [${i + 1}] ${r.title}`)];
  for (const piece of pieces) if (!(await stream.token(delta(piece)))) return;
  const citations = results.map(({ id: cid, url, title, publishedDate, author, text }) => ({
    id: cid,
    url,
    title,
    publishedDate,
    ...(author ? { author } : {}),
    ...(text ? { text } : {}),
  }));
  if (!(await stream.event(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], citations })))) return;
  if (!(await stream.event('[DONE]'))) return;
  stream.end();
}

/** A bad request's error (or the proxy page the directive asks for), else undefined. */
function searchRefusal(body: SearchBody | undefined): SimResponse | undefined {
  if (!body || typeof body.query !== 'string' || body.query.trim() === '')
    return exaError(400, 'INVALID_REQUEST_BODY', 'Invalid request body: query is required');
  const numResults = body.numResults ?? 10;
  if (typeof numResults !== 'number' || !Number.isInteger(numResults) || numResults < 1)
    return exaError(400, 'INVALID_NUM_RESULTS', 'numResults must be a positive integer');
  if (numResults > MAX_NUM_RESULTS)
    return exaError(400, 'NUM_RESULTS_EXCEEDED', `numResults must be at most ${MAX_NUM_RESULTS}`);
  if (body.query.includes('[sim:html_error]'))
    return {
      status: 502,
      headers: { 'Content-Type': 'text/html' },
      body: '<html><body><h1>502 Bad Gateway</h1></body></html>',
    };
  return undefined;
}

function searchData(body: SearchBody, query: string) {
  const numResults = (body.numResults as number | undefined) ?? 10;
  const limit = Number(/\[sim:results=(\d{1,3})\]/.exec(query)?.[1] ?? numResults);
  const count = Math.min(numResults, limit);
  const type = typeof body.type === 'string' ? body.type : 'auto';
  const window = publishedWindow(body);
  const results = Array.from({ length: count }, (_, rank) =>
    searchResult(query, rank, type, window, body.contents ?? {}),
  );
  const summaries = results.filter((r) => 'summary' in r).length;
  return {
    requestId: simRequestId(),
    searchTime: 100 + (hash(query, 'time') % 900),
    results,
    ...(query.includes('[sim:no_cost]') ? {} : { costDollars: cost(type, count, summaries) }),
    ...(query.includes('[sim:autoprompt]') ? { autopromptString: `${plain(query)} (rewritten)` } : {}),
  };
}

interface Page {
  id: string;
  url: string;
  title: string;
  publishedDate: string;
  author?: string;
  text?: string;
}

function searchResult(query: string, rank: number, type: string, window: Window, contents: ContentOptions) {
  const words = plain(query);
  const seed = hash(query, String(rank));
  const domain = DOMAINS[seed % DOMAINS.length]!;
  const slug =
    words
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60) || 'page';
  return {
    ...page(`https://${domain}/${slug}-${rank + 1}`, words, rank, seed, window, contents),
    // Exa scores only neural searches since July 2025; scores fall with the rank.
    ...(type === 'neural' ? { score: Math.round((0.9 - rank * 0.02) * 1000) / 1000 } : {}),
  };
}

/** A page's fields, with only the content fields asked for; the same for the same URL and seed. */
function page(url: string, words: string, rank: number, seed: number, window: Window, contents: ContentOptions) {
  const domain = new URL(url).host;
  const published = new Date(window.from + ((seed % 10_000) / 10_000) * (window.to - window.from));
  const text = `${words}: article ${rank + 1} on ${domain}. `.repeat(40);
  const author = AUTHORS[seed % AUTHORS.length];
  return {
    id: url,
    url,
    title: `${words} — result ${rank + 1}`,
    publishedDate: `${published.toISOString().slice(0, 10)}T00:00:00.000Z`,
    ...(author ? { author } : {}),
    favicon: `https://${domain}/favicon.ico`,
    ...(contents.text ? { text: text.slice(0, maxCharacters(contents.text, 10_000)) } : {}),
    ...(contents.highlights
      ? { highlights: [`The key finding about ${words} is set out in section ${rank + 1}.`] }
      : {}),
    ...(contents.summary ? { summary: `This page explains ${words} (source ${rank + 1}, ${domain}).` } : {}),
  };
}

function contentsAnswer(x: SimExchange): SimResponse {
  const body = (x.body ?? {}) as ContentsBody;
  const ids = body.ids ?? body.urls;
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string' && id.length > 0))
    return exaError(400, 'INVALID_URLS', 'ids (or urls) must be a non-empty array of strings');
  if (ids.length > MAX_CONTENTS_IDS)
    return exaError(400, 'INVALID_URLS', `ids (or urls) must hold at most ${MAX_CONTENTS_IDS} entries`);
  const asked = CONTENT_FIELDS.some((field) => body[field]) ? body : { text: true };
  const statuses = (ids as string[]).map(fetchStatus);
  const fetched = statuses.filter((s) => s.status === 'success').map((s) => s.id);
  const now = Date.now();
  const results = fetched.map((url) =>
    page(url, wordsOf(url), 0, hash(url), { from: now - DEFAULT_SPAN_MS, to: now }, asked),
  );
  const costDollars = contentsCost(asked, fetched.length);
  return json(200, { requestId: simRequestId(), results, statuses, ...(costDollars ? { costDollars } : {}) });
}

const CRAWL_FAILURES = [
  { marker: 'notfound', tag: 'CRAWL_NOT_FOUND', httpStatusCode: 404 },
  { marker: 'timeout', tag: 'CRAWL_TIMEOUT', httpStatusCode: 408 },
];

/** Whether a page can be fetched, decided by its URL alone. */
function fetchStatus(id: string) {
  if (!/^https?:\/\/[^/\s]+/i.test(id) || !URL.canParse(id))
    return { id, status: 'error', source: 'none', error: { tag: 'SOURCE_NOT_AVAILABLE', httpStatusCode: 400 } };
  const failure = CRAWL_FAILURES.find((f) => id.toLowerCase().includes(f.marker));
  if (failure)
    return {
      id,
      status: 'error',
      source: 'crawled',
      error: { tag: failure.tag, httpStatusCode: failure.httpStatusCode },
    };
  return { id, status: 'success', source: 'cached' };
}

/** The words of a URL's path, as the title of its page. */
function wordsOf(url: string): string {
  const { host, pathname } = new URL(url);
  return pathname.replace(/[^a-zA-Z0-9]+/g, ' ').trim() || host;
}

/** Each asked content field per fetched page; only non-zero parts, as Exa reports them. */
function contentsCost(asked: ContentOptions, pages: number) {
  const parts = CONTENT_FIELDS.filter((field) => asked[field] && pages > 0).map(
    (field) => [field, Math.round(pages * PRICE.perPage * 1e6) / 1e6] as const,
  );
  if (parts.length === 0) return undefined;
  const total = Math.round(parts.reduce((sum, [, dollars]) => sum + dollars, 0) * 1e6) / 1e6;
  return { total, contents: Object.fromEntries(parts) };
}

function maxCharacters(option: unknown, fallback: number): number {
  const max = (option as { maxCharacters?: unknown }).maxCharacters;
  return typeof max === 'number' && max > 0 ? max : fallback;
}

function publishedWindow(body: SearchBody): Window {
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
