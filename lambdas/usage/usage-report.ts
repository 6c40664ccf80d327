import { invalidUsageQuery } from './usage-errors.js';
import { parseIsoInstant } from './iso-instant.js';
import { summarizeUsage, type UsageFilter, type UsageSummary, type UsageTotals } from './usage-ledger.js';
import { NO_KEY } from '../store/usage-summary.js';
import { dynamo } from '../store/dynamo.js';
import type { DynamoDb } from '../store/dynamodb-client.js';
import { tenantClients } from '../store/tenant-sessions.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const DEFAULT_DAYS = 30;
/** A bound on one query's work; longer periods are asked for in pieces. */
const MAX_DAYS = 400;

/** The query parameters a usage report reads: the period (`parsePeriod`) and the key (`parseUsageFilter`). */
export const USAGE_QUERY = ['from', 'to', 'keyId'] as const;

export interface Period {
  readonly fromMs: number;
  readonly toMs: number;
}

/**
 * `from` and `to` are ISO 8601 dates or date-times. A date means the whole UTC day: `from`
 * its first millisecond, `to` its last, so `from=to=2026-01-01` is that one day. Defaults:
 * the last 30 days up to now.
 *
 * Usage is totalled by the UTC hour, so a date-time is resolved to the hour that holds it:
 * `from` to that hour's first millisecond, `to` to its last (the period only ever grows to
 * whole hours, so nothing asked for is left out). The report's `from` and `to` say the period
 * counted. Reading whole hours' totals makes a report cost the same however many requests the
 * period holds.
 */
export function parsePeriod(query: Readonly<Record<string, string>>, now = Date.now()): Period {
  const askedTo = query['to'] === undefined ? now : parseInstant('to', query['to'], 'end');
  const askedFrom =
    query['from'] === undefined
      ? Math.floor(askedTo / DAY_MS) * DAY_MS - (DEFAULT_DAYS - 1) * DAY_MS
      : parseInstant('from', query['from'], 'start');
  if (askedFrom > askedTo) throw invalidUsageQuery('from', 'from: must not be after to');
  const fromMs = Math.floor(askedFrom / HOUR_MS) * HOUR_MS;
  const toMs = Math.floor(askedTo / HOUR_MS) * HOUR_MS + HOUR_MS - 1;
  if (toMs - fromMs >= MAX_DAYS * DAY_MS)
    throw invalidUsageQuery('from', `from: the period may span at most ${MAX_DAYS} days`);
  return { fromMs, toMs };
}

/** Key ids as api-key-format.ts makes them; `none` names usage made without a key. */
const KEY_ID = /^[a-z2-7]{20}$/;

/** `keyId`: one key's usage only (also a revoked key's), or `none` for usage made without a key. */
export function parseUsageFilter(query: Readonly<Record<string, string>>): UsageFilter {
  const keyId = query['keyId'];
  if (keyId === undefined) return {};
  if (keyId !== NO_KEY && !KEY_ID.test(keyId))
    throw invalidUsageQuery('keyId', `keyId: must be a key id (20 characters of a-z and 2-7) or "${NO_KEY}"`);
  return { keyId };
}

function parseInstant(field: string, value: string, edge: 'start' | 'end'): number {
  const parsed = parseIsoInstant(value);
  if (!parsed) throw invalidUsageQuery(field, `${field}: must be an ISO 8601 date (YYYY-MM-DD) or date-time`);
  return parsed.isDate && edge === 'end' ? parsed.ms + DAY_MS - 1 : parsed.ms;
}

const usd = (microUsd: number) => microUsd / 1e6;
const unpriced = (totals: UsageTotals) => ({ requests: totals.unpricedRequests, tokens: totals.unpricedTokens });

/**
 * The usage record of docs/interface.md §2.7 for one account and period, plus `unpriced`: the requests and
 * tokens of models without a catalog price, which `cost` counts as 0 (overall and per model),
 * `byRoute`: the same usage split by the route (manifest id) it came through, `byKey`: split by
 * the API key that made it (`none`: no key), and `units` (overall and in each split, only where
 * there was any): the non-token work by unit. With a `keyId` filter, every figure is that key's.
 */
export async function usageReport(
  db: Pick<DynamoDb, 'query'>,
  accountId: string,
  period: Period,
  filter: UsageFilter = {},
) {
  return reportOf(await summarizeUsage(db, accountId, period.fromMs, period.toMs, filter), period);
}

/**
 * The caller's own report, read under its tenant session: the usage route's role holds no read
 * of the usage table, and the session reads only the caller's partitions.
 */
export async function ownUsageReport(accountId: string, period: Period, filter: UsageFilter = {}) {
  return usageReport((await tenantClients(accountId)).dynamo, accountId, period, filter);
}

/** An operator's report of any account (the admin route), read with the function's own role. */
export function accountUsageReport(accountId: string, period: Period, filter: UsageFilter = {}) {
  return usageReport(dynamo(), accountId, period, filter);
}

/** The usage record of a summary, however it was added up (the table, or an export of it). */
export function reportOf(summary: UsageSummary, period: Period) {
  return {
    totalRequests: summary.requests,
    totalTokens: summary.tokens,
    totalCost: usd(summary.costMicroUsd),
    from: new Date(period.fromMs).toISOString(),
    to: new Date(period.toMs).toISOString(),
    byModel: breakdown(summary.byModel),
    byRoute: breakdown(summary.byRoute),
    byKey: breakdown(summary.byKey),
    unpriced: unpriced(summary),
    ...unitsOf(summary),
  };
}

function breakdown(totalsByName: Readonly<Record<string, UsageTotals>>) {
  const figures: Record<string, Figures> = {};
  for (const [name, totals] of Object.entries(totalsByName)) {
    figures[name] = {
      requests: totals.requests,
      tokens: totals.tokens,
      cost: usd(totals.costMicroUsd),
      unpriced: unpriced(totals),
      ...unitsOf(totals),
    };
  }
  return figures;
}

interface Figures {
  requests: number;
  tokens: number;
  cost: number;
  unpriced: Unpriced;
  units?: UsageTotals['units'];
}

/** `units` only where there was non-token work: token-only usage keeps exactly docs/interface.md §2.7's shape. */
const unitsOf = (totals: UsageTotals): { units?: UsageTotals['units'] } =>
  Object.keys(totals.units).length > 0 ? { units: { ...totals.units } } : {};

type Unpriced = ReturnType<typeof unpriced>;
