import { USAGE_UNITS } from '../catalog/unit-prices.js';
import { unitsAttribute, type UsageEntry } from '../store/usage-items.js';

/**
 * The attributes of the usage table's items and their DynamoDB types: what a line of the
 * table's export to S3 carries. Data only: the Glue table's columns are built from it, and
 * docs/finance.md describes each one.
 */
export type AttributeType = 'S' | 'N' | 'BOOL';

/** The DynamoDB type a field of TypeScript type `T` is stored as. */
type AttributeTypeOf<T> =
  NonNullable<T> extends string
    ? 'S'
    : NonNullable<T> extends number
      ? 'N'
      : NonNullable<T> extends boolean
        ? 'BOOL'
        : never;

/**
 * `satisfies` makes a new UsageEntry field, or one whose type changed, a compile error until it
 * is declared here, so exports can neither lose it nor type its column wrongly.
 */
export const ENTRY_ATTRIBUTES = {
  requestId: 'S',
  sequence: 'N',
  accountId: 'S',
  keyId: 'S',
  route: 'S',
  model: 'S',
  provider: 'S',
  promptTokens: 'N',
  completionTokens: 'N',
  cachedTokens: 'N',
  cacheWriteTokens: 'N',
  cacheWrite1hTokens: 'N',
  reasoningTokens: 'N',
  costMicroUsd: 'N',
  priced: 'BOOL',
  estimated: 'BOOL',
  cached: 'BOOL',
  status: 'N',
  outcome: 'S',
  at: 'S',
  sessionId: 'S',
  round: 'N',
  agent: 'S',
  purpose: 'S',
  unit: 'S',
  quantity: 'N',
  durationMs: 'N',
  firstTokenMs: 'N',
  guardrails: 'S',
} as const satisfies { readonly [K in keyof UsageEntry]-?: AttributeTypeOf<UsageEntry[K]> };

/** What ledgerItem (store/usage-items.ts) writes next to the entry's own fields. */
const LEDGER_DERIVED_ATTRIBUTES = {
  pk: 'S',
  sk: 'S',
  type: 'S',
  totalTokens: 'N',
  costUsd: 'N',
  day: 'S',
} as const satisfies Record<string, AttributeType>;

/** The counters and labels of a day total (store/usage-totals.ts; before it, of the unsharded ledger's). */
const DAY_ATTRIBUTES = {
  pk: 'S',
  sk: 'S',
  type: 'S',
  accountId: 'S',
  day: 'S',
  model: 'S',
  route: 'S',
  requests: 'N',
  tokens: 'N',
  promptTokens: 'N',
  completionTokens: 'N',
  costMicroUsd: 'N',
  unpricedRequests: 'N',
  unpricedTokens: 'N',
  // One counter per unit of non-token work: units_search, units_characters, ...
  ...(Object.fromEntries(USAGE_UNITS.map((unit) => [unitsAttribute(unit), 'N'])) as Record<string, 'N'>),
} as const satisfies Record<string, AttributeType>;

/**
 * What totalsUpdate (store/usage-totals.ts) keeps on a totals item the aggregator derives from
 * the ledger: a day total's counters and labels, the hour of an hour total, and the API key.
 */
const TOTALS_ATTRIBUTES = {
  ...DAY_ATTRIBUTES,
  hour: 'S',
  keyId: 'S',
} as const satisfies Record<string, AttributeType>;

/** What checkpointAdvance (store/usage-checkpoints.ts) keeps per stream shard. */
const CHECKPOINT_ATTRIBUTES = {
  pk: 'S',
  sk: 'S',
  type: 'S',
  lastSequence: 'S',
} as const satisfies Record<string, AttributeType>;

/** Every attribute of any item kind; an attribute several kinds carry has the same type in each. */
export const USAGE_ATTRIBUTES: Readonly<Record<string, AttributeType>> = Object.freeze({
  ...ENTRY_ATTRIBUTES,
  ...LEDGER_DERIVED_ATTRIBUTES,
  ...DAY_ATTRIBUTES,
  ...TOTALS_ATTRIBUTES,
  ...CHECKPOINT_ATTRIBUTES,
});

/** The table's key attributes: an incremental export line's `Keys`. */
export const KEY_ATTRIBUTES: Readonly<Record<string, AttributeType>> = Object.freeze({ pk: 'S', sk: 'S' });
