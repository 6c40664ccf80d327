import { fromItem, type Item } from './dynamo.js';
import { USAGE_UNITS } from '../catalog/unit-prices.js';
import { unitsAttribute, type UsageUnit } from './usage-items.js';

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

/**
 * The totals, and the same usage split by model, by route and by API key (each split on its
 * own, each summing to the totals).
 */
export interface UsageSummary extends UsageTotals {
  readonly byModel: Record<string, UsageTotals>;
  readonly byRoute: Record<string, UsageTotals>;
  readonly byKey: Record<string, UsageTotals>;
}

/**
 * The `byKey` name of usage made without an API key (a job a dashboard session started). Key
 * ids are 20 characters, so no key can be called this.
 */
export const NO_KEY = 'none';

/** One totals item or one ledger entry, as a summary adds it. */
interface Counted extends UsageTotals {
  readonly model: string;
  readonly route: string;
  readonly keyId?: string;
}

const zero = (): UsageTotals => ({
  requests: 0,
  tokens: 0,
  costMicroUsd: 0,
  unpricedRequests: 0,
  unpricedTokens: 0,
  units: {},
});

export const emptySummary = (): UsageSummary => ({ ...zero(), byModel: {}, byRoute: {}, byKey: {} });

/**
 * Adds a totals item (a day's or an hour's): everything its period's entries of one model,
 * route and key added up to.
 */
export function addTotalsItem(summary: UsageSummary, item: Item): void {
  const totals = fromItem<Omit<Counted, 'units'>>(item);
  add(summary, {
    model: totals.model,
    route: totals.route,
    ...(totals.keyId === undefined ? {} : { keyId: totals.keyId }),
    requests: totals.requests,
    tokens: totals.tokens,
    costMicroUsd: totals.costMicroUsd,
    unpricedRequests: totals.unpricedRequests,
    unpricedTokens: totals.unpricedTokens,
    units: unitsOf(item),
  });
}

/** The `units_<unit>` counters of a totals item. */
function unitsOf(item: Item): Partial<Record<UsageUnit, number>> {
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
    keyId?: string;
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
    ...(entry.keyId === undefined ? {} : { keyId: entry.keyId }),
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
  const byKey = (summary.byKey[counted.keyId ?? NO_KEY] ??= zero());
  for (const totals of [summary, byModel, byRoute, byKey]) {
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
