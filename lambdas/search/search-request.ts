import { compileConditional } from '../schema/compile.js';
import { exceedsCharacters } from '../schema/text-length.js';
import { invalidSearch } from './search-errors.js';
import {
  DEFAULT_SEARCH_OPTIONS,
  MAX_QUERY_CHARS,
  MAX_RESULTS,
  SEARCH_TYPES,
  type SearchOptions,
  type SearchType,
} from './search-types.js';

/** The search endpoint's body (docs/interface.md §4.4), snake_case as callers send it. */
export interface SearchRequestBody {
  query: string;
  num_results?: number;
  type?: SearchType;
  include_summary?: boolean;
  recency?: string;
}

const RECENCY_PATTERN = /^([1-9][0-9]{0,4})([dwmy])$/;

/**
 * Per unit: the longest span `recency` may name (a century, which no search needs more of),
 * and how to step a date back by n of it.
 */
const RECENCY_UNITS: Readonly<Record<string, { readonly max: number; back(date: Date, n: number): void }>> = {
  d: { max: 36_500, back: (date, n) => date.setUTCDate(date.getUTCDate() - n) },
  w: { max: 5_200, back: (date, n) => date.setUTCDate(date.getUTCDate() - 7 * n) },
  m: { max: 1_200, back: (date, n) => monthsBack(date, n) },
  y: { max: 100, back: (date, n) => monthsBack(date, 12 * n) },
};

/** Calendar months back, the day clamped to the target month's last (31 March − 1m = 28 or 29 February). */
function monthsBack(date: Date, months: number): void {
  const day = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() - months);
  const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  date.setUTCDate(Math.min(day, lastDay));
}

/**
 * Unknown fields are refused (a misspelt `numResults` would otherwise silently give ten
 * results); every bound is docs/interface.md §8's.
 */
export const searchRequestSchema = {
  type: 'object',
  required: ['query'],
  additionalProperties: false,
  properties: {
    query: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_QUERY_CHARS,
      pattern: '\\S',
      'x-message': {
        pattern: 'must be text that is not empty or blank',
        maxLength: `must be at most ${MAX_QUERY_CHARS} characters`,
      },
    },
    num_results: { type: 'integer', minimum: 1, maximum: MAX_RESULTS },
    type: {
      type: 'string',
      enum: [...SEARCH_TYPES],
    },
    include_summary: { type: 'boolean' },
    recency: {
      type: 'string',
      maxLength: 6,
      pattern: RECENCY_PATTERN.source,
      'x-message': { pattern: 'must be <N><d|w|m|y>, e.g. 7d, 2w, 1m, 1y', maxLength: 'must be <N><d|w|m|y>' },
    },
  },
};

export const searchRequestValidator = compileConditional<SearchRequestBody>(searchRequestSchema);

/** The validated body as search options, defaults filled in. */
export function searchOptionsOf(body: SearchRequestBody): SearchOptions {
  return {
    numResults: body.num_results ?? DEFAULT_SEARCH_OPTIONS.numResults,
    type: body.type ?? DEFAULT_SEARCH_OPTIONS.type,
    includeSummary: body.include_summary ?? DEFAULT_SEARCH_OPTIONS.includeSummary,
    ...(body.recency === undefined ? {} : { recency: body.recency }),
  };
}

/**
 * Checks a query and options from any caller (the endpoint's body has passed its schema; a
 * model's tool call has not), so the core never sends an unbounded request upstream.
 */
export function checkSearch(query: string, options: SearchOptions): void {
  if (typeof query !== 'string' || query.trim() === '') throw invalidSearch('query', 'query: must not be blank');
  if (exceedsCharacters(query, MAX_QUERY_CHARS))
    throw invalidSearch('query', `query: must be at most ${MAX_QUERY_CHARS} characters`);
  if (!Number.isInteger(options.numResults) || options.numResults < 1 || options.numResults > MAX_RESULTS)
    throw invalidSearch('num_results', `num_results: must be an integer from 1 to ${MAX_RESULTS}`);
  if (!SEARCH_TYPES.includes(options.type))
    throw invalidSearch('type', `type: must be one of ${SEARCH_TYPES.join(', ')}`);
}

/**
 * `recency` as the earliest published date to accept (ISO 8601), counted back from `now` in
 * UTC calendar units (`1m` on 31 March is the last day of February).
 */
export function publishedAfter(recency: string, now: Date): string {
  const match = RECENCY_PATTERN.exec(recency);
  if (!match) throw invalidSearch('recency', 'recency: must be <N><d|w|m|y>, e.g. 7d, 2w, 1m, 1y');
  const amount = Number(match[1]);
  const unit = RECENCY_UNITS[match[2]!]!;
  if (amount > unit.max) throw invalidSearch('recency', `recency: at most ${unit.max}${match[2]} (a century)`);
  const start = new Date(now.getTime());
  unit.back(start, amount);
  return start.toISOString();
}
