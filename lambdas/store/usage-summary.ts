import { fromItem, type Item } from './dynamo.js';
import { USAGE_UNITS } from '../catalog/unit-prices.js';
import { UNATTRIBUTED_ROUTE, unitsAttribute, type UsageUnit } from './usage-items.js';

export interface UsageTotals {
  requests: number;
  tokens: number;
  costMicroUsd: number;
  /** Requests (and their tokens) of models the catalog has no price for: counted at cost 0. */
  unpricedRequests: number;
  unpricedTokens: number;
  /** Non-token work by unit (searches, characters, songs, seconds, credits); absent units are 0. */
  units: Partial<Record<UsageUnit, number>>;
}

/** The totals, and the same usage split by model and, separately, by route: each split sums to the totals. */
export interface UsageSummary extends UsageTotals {
  readonly byModel: Record<string, UsageTotals>;
  readonly byRoute: Record<string, UsageTotals>;
}

/** One day-total item or one ledger entry, as a summary adds it. */
interface Counted extends UsageTotals {
  readonly model: string;
  readonly route: string;
}

const zero = (): UsageTotals => ({
  requests: 0,
  tokens: 0,
  costMicroUsd: 0,
  unpricedRequests: 0,
  unpricedTokens: 0,
  units: {},
});

export const emptySummary = (): UsageSummary => ({ ...zero(), byModel: {}, byRoute: {} });

/** Adds a day-total item: everything its day's entries of one model (and route) added up to. */
export function addDayItem(summary: UsageSummary, item: Item): void {
  const day = fromItem<Pick<Counted, 'model' | 'requests' | 'tokens' | 'costMicroUsd'> & Partial<Counted>>(item);
  // Totals written before unpriced usage was counted have no such attributes, and those
  // written before totals were kept per route have no route.
  add(summary, {
    model: day.model,
    route: day.route ?? UNATTRIBUTED_ROUTE,
    requests: day.requests,
    tokens: day.tokens,
    costMicroUsd: day.costMicroUsd,
    unpricedRequests: day.unpricedRequests ?? 0,
    unpricedTokens: day.unpricedTokens ?? 0,
    units: dayUnits(item),
  });
}

/** The `units_<unit>` counters of a day-total item. */
function dayUnits(item: Item): Partial<Record<UsageUnit, number>> {
  const counters = fromItem<Record<string, unknown>>(item);
  const units: Partial<Record<UsageUnit, number>> = {};
  for (const unit of USAGE_UNITS) {
    const quantity = counters[unitsAttribute(unit)];
    if (typeof quantity === 'number') units[unit] = quantity;
  }
  return units;
}

/** Adds one ledger entry: one request. */
export function addLedgerItem(summary: UsageSummary, item: Item): void {
  const entry = fromItem<{
    model: string;
    route: string;
    totalTokens: number;
    costMicroUsd: number;
    priced?: boolean;
    unit?: UsageUnit;
    quantity?: number;
  }>(item);
  // Entries written before `priced` existed carry no flag: they were metered as priced.
  const unpriced = entry.priced === false;
  add(summary, {
    model: entry.model,
    route: entry.route,
    requests: 1,
    tokens: entry.totalTokens,
    costMicroUsd: entry.costMicroUsd,
    unpricedRequests: unpriced ? 1 : 0,
    unpricedTokens: unpriced ? entry.totalTokens : 0,
    units: entry.unit === undefined ? {} : { [entry.unit]: entry.quantity ?? 0 },
  });
}

function add(summary: UsageSummary, counted: Counted): void {
  const byModel = (summary.byModel[counted.model] ??= zero());
  const byRoute = (summary.byRoute[counted.route] ??= zero());
  for (const totals of [summary, byModel, byRoute]) {
    totals.requests += counted.requests;
    totals.tokens += counted.tokens;
    totals.costMicroUsd += counted.costMicroUsd;
    totals.unpricedRequests += counted.unpricedRequests;
    totals.unpricedTokens += counted.unpricedTokens;
    for (const [unit, quantity] of Object.entries(counted.units) as [UsageUnit, number][]) {
      totals.units[unit] = (totals.units[unit] ?? 0) + quantity;
    }
  }
}
