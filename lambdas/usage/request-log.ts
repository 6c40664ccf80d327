import { readUsageEntry } from './usage-entry-reader.js';
import { invalidUsageQuery } from './usage-errors.js';
import { parseIsoInstant } from './iso-instant.js';
import { fromItem, tableName, type Item } from '../store/dynamo.js';
import type { DynamoDb } from '../store/dynamodb-client.js';
import { tenantClients } from '../store/tenant-sessions.js';
import type { UsageEntry } from '../store/usage-items.js';
import { LEDGER_SHARDS } from '../store/usage-ledger-shards.js';
import { LedgerRequestsNewestFirst, type LedgerRequest } from '../store/usage-ledger-requests.js';
import { NO_KEY } from '../store/usage-summary.js';

/**
 * The request log (docs/interface.md §4.8.1): one row per request, newest first, read from the
 * ledger's entries (lambdas/store/usage-ledger-requests.ts) a page at a time.
 */

/** The query parameters the request log reads (any other is refused). */
export const REQUEST_LOG_QUERY = ['from', 'to', 'keyId', 'model', 'route', 'status', 'limit', 'cursor'] as const;

export const MAX_LIMIT = 200;
export const DEFAULT_LIMIT = 50;
/**
 * Query calls one page may make: the first round (one per shard) and as many again to refill
 * shards that ran dry. A filter that matches few requests ends its page here, with fewer rows
 * and a cursor, so no page reads without bound however little matches.
 */
export const PAGE_QUERY_BUDGET = 2 * LEDGER_SHARDS;

const DAY_MS = 86_400_000;
const KEY_ID = /^[a-z2-7]{20}$/;
const ROUTE_ID = /^[a-z0-9-]{1,64}$/;
const MODEL = /^[\x21-\x7e]{1,200}$/;
const STATUS = /^(0|[1-5]\d\d)$/;
const LIMIT = /^\d{1,3}$/;
/** A request's position: `LEDGER#<at>#<requestId>#`, as ledgerSk (store/usage-items.ts) writes it. */
const POSITION = /^LEDGER#\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[\x21\x22\x24-\x7e]{1,300}#$/;
const CURSOR = /^[A-Za-z0-9_-]{1,600}$/;

export interface RequestLogQuery {
  readonly fromSk: string;
  readonly toSk: string;
  readonly limit: number;
  readonly keyId?: string;
  readonly model?: string;
  readonly route?: string;
  readonly status?: number;
}

/**
 * Every parameter checked, each refusal naming it. `from` and `to` are ISO 8601 dates (a whole
 * UTC day) or date-times, both inclusive, of when requests started; neither is required. A
 * `cursor` is a `nextCursor` this route answered: it continues after the last request listed.
 */
export function parseRequestLogQuery(query: Readonly<Record<string, string>>): RequestLogQuery {
  const from = query['from'] === undefined ? undefined : instant('from', query['from'], 'start');
  const to = query['to'] === undefined ? undefined : instant('to', query['to'], 'end');
  if (from !== undefined && to !== undefined && from > to)
    throw invalidUsageQuery('from', 'from: must not be after to');
  const after = query['cursor'] === undefined ? undefined : positionOf(query['cursor']);
  const toSk = to === undefined ? 'LEDGER#\uffff' : `LEDGER#${new Date(to).toISOString()}#\uffff`;
  return {
    fromSk: from === undefined ? 'LEDGER#' : `LEDGER#${new Date(from).toISOString()}`,
    toSk: after !== undefined && after < toSk ? after : toSk,
    limit: limitOf(query['limit']),
    ...matching('keyId', query['keyId'], (value) => value === NO_KEY || KEY_ID.test(value), 'a key id or "none"'),
    ...matching('model', query['model'], (value) => MODEL.test(value), 'a model id (1 to 200 visible characters)'),
    ...matching('route', query['route'], (value) => ROUTE_ID.test(value), 'a route id (a-z, 0-9 and -)'),
    ...(query['status'] === undefined ? {} : { status: statusOf(query['status']) }),
  };
}

function instant(field: string, value: string, edge: 'start' | 'end'): number {
  const parsed = parseIsoInstant(value);
  if (!parsed) throw invalidUsageQuery(field, `${field}: must be an ISO 8601 date (YYYY-MM-DD) or date-time`);
  return parsed.isDate && edge === 'end' ? parsed.ms + DAY_MS - 1 : parsed.ms;
}

function limitOf(value: string | undefined): number {
  const limit = value === undefined ? DEFAULT_LIMIT : LIMIT.test(value) ? Number(value) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT))
    throw invalidUsageQuery('limit', `limit: must be a whole number from 1 to ${MAX_LIMIT}`);
  return limit;
}

function statusOf(value: string): number {
  if (!STATUS.test(value)) throw invalidUsageQuery('status', 'status: must be an HTTP status (100 to 599) or 0');
  return Number(value);
}

function matching(
  field: 'keyId' | 'model' | 'route',
  value: string | undefined,
  valid: (value: string) => boolean,
  what: string,
): Partial<Record<typeof field, string>> {
  if (value === undefined) return {};
  if (!valid(value)) throw invalidUsageQuery(field, `${field}: must be ${what}`);
  return { [field]: value };
}

/** The cursor of a position: opaque to callers (base64url), checked whole when it comes back. */
export const cursorOf = (position: string): string => Buffer.from(position, 'utf8').toString('base64url');

function positionOf(cursor: string): string {
  const position = CURSOR.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!POSITION.test(position) || cursorOf(position) !== cursor)
    throw invalidUsageQuery('cursor', 'cursor: must be a nextCursor this route answered');
  return position;
}

/** One request as the log lists it. */
export interface RequestRow {
  readonly id: string;
  readonly time: string;
  readonly route: string;
  readonly keyId: string | null;
  /** The model that answered, or the last one tried. */
  readonly model: string;
  readonly provider: string | null;
  /** The model first tried, when the answer came from another (a fallback). */
  readonly fallbackFrom: string | null;
  /** Upstream attempts and cache hits metered for the request. */
  readonly attempts: number;
  readonly status: number;
  readonly outcome: string;
  readonly cached: boolean;
  readonly tokens: { readonly prompt: number; readonly completion: number; readonly total: number };
  readonly cost: number;
  /** False when some attempt's model has no catalog price (its cost counts as 0). */
  readonly priced: boolean;
  /** The attempts' upstream time, summed; null when none was timed (entries metered before timings were kept). */
  readonly latencyMs: number | null;
  readonly timeToFirstTokenMs: number | null;
  /**
   * Each guardrail that ran and its outcome (`pass`, `redact`, `skip`; `block` or `fail` when it
   * stopped the answer); null when none ran.
   */
  readonly guardrails: Readonly<Record<string, string>> | null;
  readonly sessionId?: string;
}

/** The row of one request's entries (in sequence order; never empty). */
export function rowOf(entries: readonly UsageEntry[]): RequestRow {
  const first = entries[0]!;
  const last = entries.at(-1)!;
  const sum = (of: (entry: UsageEntry) => number) => entries.reduce((total, entry) => total + of(entry), 0);
  const timed = entries.filter((entry) => entry.durationMs !== undefined);
  const prompt = sum((entry) => entry.promptTokens);
  const completion = sum((entry) => entry.completionTokens);
  return {
    id: first.requestId,
    time: first.at,
    route: first.route,
    keyId: first.keyId ?? null,
    model: last.model,
    provider: last.provider ?? null,
    fallbackFrom: first.model !== last.model ? first.model : null,
    attempts: entries.length,
    status: last.status,
    outcome: last.outcome ?? (last.status === 200 ? 'ok' : 'error'),
    cached: entries.some((entry) => entry.cached),
    tokens: { prompt, completion, total: prompt + completion },
    cost: sum((entry) => entry.costMicroUsd) / 1e6,
    priced: entries.every((entry) => entry.priced),
    latencyMs: timed.length > 0 ? sum((entry) => entry.durationMs ?? 0) : null,
    timeToFirstTokenMs: last.firstTokenMs ?? null,
    guardrails: guardrailsOf(last.guardrails),
    ...(first.sessionId !== undefined ? { sessionId: first.sessionId } : {}),
  };
}

/** `pii:redact,content_moderation:pass` as `{pii: 'redact', content_moderation: 'pass'}`. */
function guardrailsOf(recorded: string | undefined): Record<string, string> | null {
  if (!recorded) return null;
  const pairs = recorded.split(',').map((pair) => pair.split(':') as [string, string?]);
  return Object.fromEntries(pairs.filter(([, outcome]) => outcome !== undefined) as [string, string][]);
}

function matches(row: RequestRow, query: RequestLogQuery): boolean {
  return (
    (query.keyId === undefined || (row.keyId ?? NO_KEY) === query.keyId) &&
    (query.model === undefined || row.model === query.model) &&
    (query.route === undefined || row.route === query.route) &&
    (query.status === undefined || row.status === query.status)
  );
}

export interface RequestLogPage {
  readonly requests: RequestRow[];
  /**
   * Present when the log may hold more (absent once every shard was read to the range's end):
   * the next page starts after the last request read.
   */
  readonly nextCursor?: string;
}

/**
 * One page of an account's request log: requests are read newest first until `limit` match the
 * filters, the range ends, or the page's Query budget is spent (then fewer rows come back, with
 * a cursor that continues after the last request read, matched or not).
 */
export async function requestLogPage(
  reader: { readonly db: Pick<DynamoDb, 'query'>; readonly table: string },
  accountId: string,
  query: RequestLogQuery,
): Promise<RequestLogPage> {
  const requests = new LedgerRequestsNewestFirst(
    reader,
    accountId,
    { fromSk: query.fromSk, toSk: query.toSk },
    { firstQueryEntries: Math.ceil((2 * query.limit) / LEDGER_SHARDS) + 4, queries: PAGE_QUERY_BUDGET },
  );
  const rows: RequestRow[] = [];
  let position: string | undefined;
  for (;;) {
    if (rows.length === query.limit)
      return requests.exhausted ? { requests: rows } : { requests: rows, nextCursor: cursorOf(position!) };
    const next = await requests.next();
    if (next === 'end') return { requests: rows };
    if (next === 'budget') return { requests: rows, ...(position ? { nextCursor: cursorOf(position) } : {}) };
    const row = rowOf(entriesOf(next));
    if (matches(row, query)) rows.push(row);
    position = next.prefix;
  }
}

const entriesOf = (request: LedgerRequest): UsageEntry[] =>
  request.items.map((item: Item) => readUsageEntry(fromItem(item)));

/**
 * The caller's own log, read under its tenant session: the route's role holds no read of the
 * usage table, and the session reads only the caller's partitions.
 */
export async function ownRequestLog(accountId: string, query: RequestLogQuery): Promise<RequestLogPage> {
  const db = (await tenantClients(accountId)).dynamo;
  return requestLogPage({ db, table: tableName('usage') }, accountId, query);
}
