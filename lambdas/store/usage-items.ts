import type { UsageUnit } from '../catalog/unit-prices.js';
import { toItem, type Item } from './dynamo.js';

export type { UsageUnit } from '../catalog/unit-prices.js';

/**
 * One metered event: an upstream attempt or a cache hit. Items are flat (ids, ISO times,
 * integers) so that the table's export to S3 reads cleanly for finance.
 */
export interface UsageEntry {
  readonly requestId: string;
  /** Distinguishes several metered events of one request (retries, fallbacks, arena agents). */
  readonly sequence: number;
  readonly accountId: string;
  readonly keyId?: string;
  readonly route: string;
  readonly model: string;
  readonly provider?: string;
  /** Every input token, cached ones included. */
  readonly promptTokens: number;
  /** Every output token, reasoning included. */
  readonly completionTokens: number;
  // The parts of the tokens the cost was priced by (catalog/prices.ts), absent (not 0) when none.
  /** Prompt tokens read from the provider's prompt cache. */
  readonly cachedTokens?: number;
  /** Prompt tokens written to the provider's prompt cache (all of them, whatever their time). */
  readonly cacheWriteTokens?: number;
  /** The part of `cacheWriteTokens` written to a 1-hour cache (Anthropic's). */
  readonly cacheWrite1hTokens?: number;
  /** Completion tokens spent reasoning (thinking): already in `completionTokens`. */
  readonly reasoningTokens?: number;
  /** Integer micro-USD: sums stay exact. */
  readonly costMicroUsd: number;
  /** False when the catalog has no price for the model: the cost of 0 is then unknown, not free. */
  readonly priced: boolean;
  /** True when tokens were estimated because the provider reported none. */
  readonly estimated: boolean;
  readonly cached: boolean;
  /** The upstream's HTTP status (200 for answers and cache hits; 0 when none was received). */
  readonly status: number;
  /** `ok`, `cache_hit`, or the failure class (`rate_limit`, `timeout`, ...). */
  readonly outcome?: string;
  /** When the request started (ISO 8601); fixed per request so rewrites hit the same item. */
  readonly at: string;
  // Arena tags: set on the calls of a battle or fight, absent (not null) on every other entry.
  /** The arena session the call belongs to. */
  readonly sessionId?: string;
  /** The round (from 1) the call was made in. */
  readonly round?: number;
  /** The label of the agent that made the call (`gpt`, `claude-2`, ...): the answerer or the voter. */
  readonly agent?: string;
  /** Whether the call was an agent's answer or its vote. */
  readonly purpose?: UsagePurpose;
  /**
   * What was bought when it was not tokens (a web search: `search`, quantity 1; speech
   * `characters`; music `songs`; video `seconds`; fashion `credits`), absent on token entries.
   * Such an entry has 0 tokens and the cost of its units.
   */
  readonly unit?: UsageUnit;
  readonly quantity?: number;
  // Timings of an upstream attempt (absent on cache hits, searches and unit work, and on entries
  // metered before they were kept): what the request log shows.
  /** How long the attempt took, in whole milliseconds. */
  readonly durationMs?: number;
  /** A stream that answered: milliseconds until its first chunk of substance. */
  readonly firstTokenMs?: number;
  /**
   * The request's guardrail outcomes, on each of its entries when any guardrail ran: the
   * X-Guardrail-Status pairs (`pii:redact,content_moderation:pass`), plus `<guardrail>:block`
   * (moderation) or `schema_validation:fail` when one stopped the answer.
   */
  readonly guardrails?: string;
}

export type UsagePurpose = 'answer' | 'vote' | 'search' | 'synthesis';

export const accountPk = (accountId: string) => `ACCOUNT#${accountId}`;
export const ledgerSk = (at: string, requestId: string, sequence: number) =>
  `LEDGER#${at}#${requestId}#${String(sequence).padStart(4, '0')}`;

const tokensOf = (entry: UsageEntry) => entry.promptTokens + entry.completionTokens;

/**
 * The ledger item in partition `pk` (its ledger shard: usage-ledger-shards.ts); its key (request
 * id + sequence) is the same however often it is written.
 */
export function ledgerItem(entry: UsageEntry, pk: string): Item {
  return toItem({
    pk,
    sk: ledgerSk(entry.at, entry.requestId, entry.sequence),
    type: 'ledger',
    ...entry,
    totalTokens: tokensOf(entry),
    costUsd: entry.costMicroUsd / 1e6,
    day: entry.at.slice(0, 10),
  });
}

/** What a set of entries adds to a total: the counters every total item keeps. */
export interface Counters {
  requests: number;
  tokens: number;
  promptTokens: number;
  completionTokens: number;
  costMicroUsd: number;
  unpricedRequests: number;
  unpricedTokens: number;
  /** Units of non-token work (searches, characters, songs, seconds, credits) this delta adds. */
  units: Partial<Record<UsageUnit, number>>;
}

export const zeroCounters = (): Counters => ({ ...ZERO, units: {} });

/** Adds one entry to a sum: one request, its tokens, cost and units. */
export function addEntry(sum: Counters, entry: UsageEntry): void {
  sum.requests += 1;
  sum.tokens += tokensOf(entry);
  sum.promptTokens += entry.promptTokens;
  sum.completionTokens += entry.completionTokens;
  sum.costMicroUsd += entry.costMicroUsd;
  if (entry.unit !== undefined) sum.units[entry.unit] = (sum.units[entry.unit] ?? 0) + (entry.quantity ?? 0);
  if (!entry.priced) {
    sum.unpricedRequests += 1;
    sum.unpricedTokens += tokensOf(entry);
  }
}

const ZERO = {
  requests: 0,
  tokens: 0,
  promptTokens: 0,
  completionTokens: 0,
  costMicroUsd: 0,
  unpricedRequests: 0,
  unpricedTokens: 0,
};

/** The day-total attribute counting one unit: `units_characters`, `units_search`, ... */
export const unitsAttribute = (unit: UsageUnit) => `units_${unit}`;

/**
 * The ADD clause that adds counters to a totals item (usage-totals.ts), and its values; the
 * counters are those usage-attributes.ts lists.
 */
export function addCounters(counters: Counters): { expression: string; values: Record<string, number> } {
  const units = Object.entries(counters.units) as [UsageUnit, number][];
  return {
    expression:
      'ADD requests :requests, tokens :tokens, promptTokens :prompt, completionTokens :completion, ' +
      'costMicroUsd :cost, unpricedRequests :unpricedRequests, unpricedTokens :unpricedTokens' +
      units.map(([unit]) => `, ${unitsAttribute(unit)} :${unitsAttribute(unit)}`).join(''),
    values: {
      ...Object.fromEntries(units.map(([unit, quantity]) => [`:${unitsAttribute(unit)}`, quantity])),
      ':requests': counters.requests,
      ':tokens': counters.tokens,
      ':prompt': counters.promptTokens,
      ':completion': counters.completionTokens,
      ':cost': counters.costMicroUsd,
      ':unpricedRequests': counters.unpricedRequests,
      ':unpricedTokens': counters.unpricedTokens,
    },
  };
}
