/**
 * The model past one machine (bench/scale.ts): DynamoDB capacity from the calls measured
 * requests made, scaled to a deployment's request rate and set against AWS's limits. Pure:
 * measured calls in, figures out, so the arithmetic is tested on fixed inputs
 * (test/unit/bench/scale-model.test.ts).
 */

/** An item a DynamoDB call read or wrote, as local/dynamodb-latency.mjs logs it in detail. */
export interface TouchedItem {
  /** Physical table name. */
  readonly table: string;
  /** A global secondary index: the write lands in the index's partition `pk` too. */
  readonly index?: string;
  /** Partition key value ('' for a Scan). */
  readonly pk: string;
  readonly access: 'read' | 'write';
  /** The item's size as DynamoDB counts it; for a Query, everything it returned. */
  readonly bytes: number;
  readonly transactional?: boolean;
  readonly consistent?: boolean;
}

export interface LoggedCall {
  readonly operation: string;
  /** Arrival, epoch milliseconds on the shared performance clock. */
  readonly at: number;
  readonly status?: number;
  /** AWS error name, e.g. ConditionalCheckFailedException. */
  readonly error?: string;
  readonly items?: readonly TouchedItem[];
}

/** One measured request: which tenant and API key sent it, and the calls that arrived for it. */
export interface MeasuredRequest {
  readonly tenant: number;
  readonly key: number;
  readonly calls: readonly LoggedCall[];
}

/** AWS's published defaults the model is checked against. */
export const AWS_LIMITS = {
  partitionWcuPerS: 1_000,
  partitionRcuPerS: 3_000,
  /** A new on-demand table serves this much at once; it then doubles on its previous peak. */
  tableInitialWruPerS: 4_000,
  tableInitialRruPerS: 12_000,
  apiGatewayRequestsPerS: 10_000,
  apiGatewayBurst: 5_000,
  lambdaConcurrency: 1_000,
  /** Each function scales by this many execution environments every 10 s. */
  lambdaScalingPer10s: 1_000,
  secretsManagerGetSecretValuePerS: 10_000,
  /**
   * STS's default request quota per account and Region, shared by every STS call made with the
   * account's credentials, AssumeRole among them ("IAM and AWS STS quotas",
   * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html).
   */
  stsRequestsPerS: 600,
} as const;

const WRITE_UNIT_BYTES = 1024;
const READ_UNIT_BYTES = 4096;

export interface Capacity {
  readonly wcu: number;
  readonly rcu: number;
}

/**
 * As DynamoDB charges: a write is 1 WCU per KB (rounded up, at least 1), a read 1 RCU per
 * 4 KB (at least one unit, a Query's items summed first), half that when eventually
 * consistent; transactions cost double. A read of nothing still costs the minimum.
 */
export function capacityOf(item: TouchedItem): Capacity {
  const factor = item.transactional ? 2 : 1;
  if (item.access === 'write') return { wcu: Math.max(1, Math.ceil(item.bytes / WRITE_UNIT_BYTES)) * factor, rcu: 0 };
  const units = Math.max(1, Math.ceil(item.bytes / READ_UNIT_BYTES));
  return { wcu: 0, rcu: units * (item.transactional ? 2 : item.consistent ? 1 : 0.5) };
}

/**
 * A partition key with its identifiers replaced: `ACCOUNT#a1b2` → `ACCOUNT#<id>`. Segments
 * made only of capital letters and underscores are kinds (ACCOUNT, SHARD), kept; anything
 * else (ids, hashes, numbers, days) is a value.
 */
export function keyPattern(pk: string): string {
  if (pk === '') return '(whole table)';
  return pk
    .split('#')
    .map((segment) => (/^[A-Z][A-Z_]*$/.test(segment) ? segment : '<id>'))
    .join('#');
}

/** The aggregator's partitions: an account's totals, and the stream shards' checkpoints. */
const isAggregatorItem = (item: { readonly pk: string }) => item.pk.endsWith('#TOTALS') || item.pk === 'AGGREGATOR';
/**
 * A call of the usage aggregator (its totals and checkpoints only): in AWS another function, fed
 * by the table's stream, at moments that have nothing to do with any request's.
 */
export const isAggregatorCall = (call: { readonly items?: readonly { readonly pk: string }[] }) =>
  (call.items?.length ?? 0) > 0 && call.items!.every(isAggregatorItem);
const LEDGER_SHARD = /^ACCOUNT#.+#L\d+$/;

/** Answered with a throttling error: not charged, and retried in a later call. */
const THROTTLED = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);
export const isThrottled = (call: LoggedCall) => call.error !== undefined && THROTTLED.has(call.error);

/** A table (or `table/index`) per request of a kind. */
export interface TableLoad {
  readonly table: string;
  /** Calls that touched the table (a transaction or batch over two tables counts for both). */
  readonly callsPerRequest: number;
  /** Operation → calls per request. */
  readonly operations: ReadonlyMap<string, number>;
  readonly wcuPerRequest: number;
  readonly rcuPerRequest: number;
}

/**
 * Whose traffic reaches a partition key: one API key's, one tenant's (any of its keys), every
 * tenant's, or a single request's (a key written once, such as a cached answer: never hot).
 */
export type Scope = 'key' | 'tenant' | 'shared' | 'request';

export interface PartitionLoad {
  readonly table: string;
  readonly pk: string;
  readonly pattern: string;
  readonly scope: Scope;
  /** Capacity per request of the scope (one key's requests, one tenant's, all); per touch for 'request'. */
  readonly wcuPerRequest: number;
  readonly rcuPerRequest: number;
}

export interface KindProfile {
  readonly requests: number;
  readonly tables: readonly TableLoad[];
  readonly partitions: readonly PartitionLoad[];
  /** Items a request writes to the ledger's shards (`ACCOUNT#<id>#L<n>`): what the aggregator reads back. */
  readonly ledgerEntriesPerRequest: number;
  /**
   * Calls of the usage aggregator (totals and checkpoints only), left out of the per-request
   * loads: its cost is per stream batch, not per request, and modelScenario models it so.
   */
  readonly aggregatorCalls: number;
  /** Calls answered with an error other than throttling (charged: a failed condition still costs). */
  readonly failedCalls: number;
  readonly throttledCalls: number;
}

/** Share of a per-request pattern's keys that one request alone touched (see patternScopes). */
const PER_REQUEST_SHARE = 0.9;

/**
 * The scope of each table's key pattern, from who touched its keys. Judged over the pattern,
 * not key by key: a sharded tenant key touched by a few requests may by chance have seen only
 * one API key's. A pattern is per request when it gained a new key at least every other request
 * and (nearly) no request revisited one: its keys grow with the traffic (a cached answer; a
 * write that landed late, on the next request, must not undo that). Shard items touched once
 * each by occasional leases are few, so they are not.
 */
function patternScopes(
  partitions: readonly { table: string; pk: string; requests: Set<number>; keys: Set<number>; tenants: Set<number> }[],
  requests: number,
): Map<string, Scope> {
  const byPattern = new Map<string, (typeof partitions)[number][]>();
  for (const p of partitions) {
    const id = `${p.table}\u0000${keyPattern(p.pk)}`;
    const keys = byPattern.get(id) ?? [];
    keys.push(p);
    byPattern.set(id, keys);
  }
  const scopes = new Map<string, Scope>();
  for (const [id, keys] of byPattern) {
    const scope: Scope =
      keys.length * 2 >= requests && keys.filter((k) => k.requests.size === 1).length >= PER_REQUEST_SHARE * keys.length
        ? 'request'
        : keys.some((k) => k.tenants.size > 1)
          ? 'shared'
          : keys.some((k) => k.keys.size > 1)
            ? 'tenant'
            : 'key';
    scopes.set(id, scope);
  }
  return scopes;
}

const tableLabel = (item: TouchedItem, tableName: (physical: string) => string) =>
  item.index ? `${tableName(item.table)}/${item.index}` : tableName(item.table);

/** Per-request loads of one kind of request, per table and per partition key. */
export function profileOf(
  requests: readonly MeasuredRequest[],
  tableName: (physical: string) => string = (name) => name,
): KindProfile {
  const n = requests.length;
  const tables = new Map<string, { calls: number; operations: Map<string, number>; wcu: number; rcu: number }>();
  interface Touches {
    table: string;
    pk: string;
    wcu: number;
    rcu: number;
    requests: Set<number>;
    keys: Set<number>;
    tenants: Set<number>;
  }
  const partitions = new Map<string, Touches>();
  const requestsOfKey = new Map<number, number>();
  const requestsOfTenant = new Map<number, number>();
  let failedCalls = 0;
  let throttledCalls = 0;
  let ledgerEntries = 0;
  let aggregatorCalls = 0;
  requests.forEach((request, index) => {
    requestsOfKey.set(request.key, (requestsOfKey.get(request.key) ?? 0) + 1);
    requestsOfTenant.set(request.tenant, (requestsOfTenant.get(request.tenant) ?? 0) + 1);
    for (const call of request.calls) {
      if (isThrottled(call)) {
        throttledCalls++;
        continue;
      }
      if (isAggregatorCall(call)) {
        aggregatorCalls++;
        continue;
      }
      if (call.error !== undefined) failedCalls++;
      const items = call.items ?? [];
      ledgerEntries += items.filter((item) => item.access === 'write' && LEDGER_SHARD.test(item.pk)).length;
      const touched = new Set(items.length === 0 ? ['(not described)'] : items.map((i) => tableLabel(i, tableName)));
      for (const table of touched) {
        const load = tables.get(table) ?? { calls: 0, operations: new Map<string, number>(), wcu: 0, rcu: 0 };
        load.calls++;
        load.operations.set(call.operation, (load.operations.get(call.operation) ?? 0) + 1);
        tables.set(table, load);
      }
      for (const item of items) {
        const { wcu, rcu } = capacityOf(item);
        const table = tableLabel(item, tableName);
        const load = tables.get(table)!;
        load.wcu += wcu;
        load.rcu += rcu;
        const id = `${table}\u0000${item.pk}`;
        const touches = partitions.get(id) ?? {
          table,
          pk: item.pk,
          wcu: 0,
          rcu: 0,
          requests: new Set<number>(),
          keys: new Set<number>(),
          tenants: new Set<number>(),
        };
        touches.wcu += wcu;
        touches.rcu += rcu;
        touches.requests.add(index);
        touches.keys.add(request.key);
        touches.tenants.add(request.tenant);
        partitions.set(id, touches);
      }
    }
  });
  const scopes = patternScopes([...partitions.values()], n);
  return {
    requests: n,
    failedCalls,
    throttledCalls,
    ledgerEntriesPerRequest: ledgerEntries / n,
    aggregatorCalls,
    tables: [...tables]
      .map(([table, load]) => ({
        table,
        callsPerRequest: load.calls / n,
        operations: new Map([...load.operations].map(([op, calls]) => [op, calls / n])),
        wcuPerRequest: load.wcu / n,
        rcuPerRequest: load.rcu / n,
      }))
      .sort((a, b) => a.table.localeCompare(b.table)),
    partitions: [...partitions.values()].map((touches) => {
      const pattern = keyPattern(touches.pk);
      const scope = scopes.get(`${touches.table}\u0000${pattern}`)!;
      const [key] = touches.keys;
      const [tenant] = touches.tenants;
      const scopeRequests =
        scope === 'request'
          ? touches.requests.size
          : scope === 'shared'
            ? n
            : scope === 'tenant'
              ? requestsOfTenant.get(tenant!)!
              : requestsOfKey.get(key!)!;
      return {
        table: touches.table,
        pk: touches.pk,
        pattern,
        scope,
        wcuPerRequest: touches.wcu / scopeRequests,
        rcuPerRequest: touches.rcu / scopeRequests,
      };
    }),
  };
}

/** A deployment's traffic of one kind. */
export interface Scenario {
  readonly kind: string;
  readonly tenants: number;
  /** Requests per second, all tenants together, spread evenly over them. */
  readonly rate: number;
  /** How long one request holds its Lambda execution environment, seconds. */
  readonly durationS: number;
}

/** Calls to other AWS services, measured per request in steady state and on a fresh instance. */
export interface ServiceCalls {
  readonly secretsPerRequest: number;
  readonly secretsPerColdStart: number;
  readonly stsPerRequest: number;
  readonly stsPerColdStart: number;
}

/** How instances keep tenant sessions, and how many requests need one. */
export interface TenantSessionSettings {
  /** A session's lifetime, seconds (900). */
  readonly sessionS: number;
  /** Renewed this long before it expires, seconds (120). */
  readonly refreshBeforeS: number;
  /** Accounts one instance keeps sessions for at most (its LRU bound). */
  readonly cacheAccounts: number;
  /** Share of requests that read under a tenant session (BYOK chat, usage, session reads); 1 is the worst case. */
  readonly share: number;
}

/**
 * AssumeRole calls a second: every instance keeps one session per account it serves and renews
 * it every `sessionS - refreshBeforeS`; an instance serves at most as many accounts as it sees
 * requests needing one in that time, as there are tenants, and as its cache holds; never more
 * than one call per such request. Cold instances add their first session each, as a burst (the
 * model counts other services' cold-start reads the same way).
 */
export function tenantSessionCalls(
  settings: TenantSessionSettings,
  load: { readonly rate: number; readonly tenants: number; readonly concurrency: number; readonly coldBurst: number },
): number {
  const renewS = settings.sessionS - settings.refreshBeforeS;
  const needing = load.rate * settings.share;
  if (needing === 0 || load.concurrency === 0) return 0;
  const perInstance = Math.min(load.tenants, settings.cacheAccounts, (needing / load.concurrency) * renewS);
  const steady = Math.min(needing, (load.concurrency * Math.max(1, perInstance)) / renewS);
  return steady + Math.min(load.coldBurst, needing);
}

/** The aggregator's event source mapping and what it writes per batch (lib/constructs/usage-pipeline.ts). */
export interface AggregatorSettings {
  /** Records a batch holds at most (the mapping's BatchSize). */
  readonly batchSize: number;
  /** How long Lambda gathers a batch that is not full (MaximumBatchingWindowInSeconds). */
  readonly batchingWindowS: number;
  /** Lambda's invocation payload limit, which also caps a stream batch. */
  readonly payloadBytes: number;
  /** A ledger insert's stream record (its new image in DynamoDB JSON), about. */
  readonly recordBytes: number;
  /** Totals items per transaction (with the shard's checkpoint). */
  readonly totalsPerTransaction: number;
  /** Model and route pairs one API key's requests use within one batch. */
  readonly pairsPerKey: number;
}

/** What the code fixes, read from it by the caller. */
export interface ModelConstants {
  /** Highest per-key rate limit (requests a minute): a tenant needs enough keys for its rate. */
  readonly maxKeyRequestsPerMinute: number;
  /** How long an instance keeps a secret before reading it again. */
  readonly secretCacheS: number;
  /** Tenant sessions (lambdas/store/tenant-credentials.ts); absent: none are opened. */
  readonly tenantSessions?: TenantSessionSettings;
  readonly aggregator: AggregatorSettings;
}

/** The aggregator at a deployment's rate: stream shards, batches and what they write. */
export interface AggregatorLoad {
  /** The usage table's stream shards: one per table partition, each under 1,000 WCU/s of ledger writes. */
  readonly shards: number;
  readonly batchesPerShardS: number;
  readonly recordsPerBatch: number;
  /** Transactional writes to one tenant's totals partition, and to the checkpoints' partition. */
  readonly tenantTotalsWcuPerS: number;
  readonly checkpointWcuPerS: number;
  readonly checkpointRcuPerS: number;
}

/**
 * Ledger entries arrive in the usage table's stream, one shard per table partition; Lambda
 * hands each shard's records to the aggregator in batches, one a shard at a time, gathered for
 * the batching window unless full (by count or by the payload limit). A batch adds, for each
 * tenant in it, a day and an hour total per model, route and key it saw (2 write units each,
 * transactional), plus the shard's checkpoint per transaction (2 units) after reading it (1).
 */
export function aggregatorLoad(
  entriesPerS: number,
  tenants: number,
  keysPerTenant: number,
  settings: AggregatorSettings,
): AggregatorLoad | undefined {
  if (entriesPerS <= 0) return undefined;
  const shards = Math.max(1, Math.ceil(entriesPerS / AWS_LIMITS.partitionWcuPerS));
  const perShard = entriesPerS / shards;
  const fullBatch = Math.min(settings.batchSize, Math.floor(settings.payloadBytes / settings.recordBytes));
  const batchesPerShardS = Math.min(perShard, Math.max(1 / settings.batchingWindowS, perShard / fullBatch));
  const recordsPerBatch = perShard / batchesPerShardS;
  const tenantItems = 2 * Math.min(keysPerTenant * settings.pairsPerKey, recordsPerBatch / tenants);
  const transactions = Math.ceil((tenantItems * tenants) / settings.totalsPerTransaction);
  return {
    shards,
    batchesPerShardS,
    recordsPerBatch,
    tenantTotalsWcuPerS: shards * batchesPerShardS * tenantItems * 2,
    checkpointWcuPerS: shards * batchesPerShardS * transactions * 2,
    checkpointRcuPerS: shards * batchesPerShardS,
  };
}

export interface PartitionRate {
  readonly table: string;
  readonly pattern: string;
  readonly pk: string;
  readonly scope: Scope;
  readonly wcuPerS: number;
  readonly rcuPerS: number;
  /** The larger of its write and read use as a share of the per-partition limits. */
  readonly share: number;
}

export interface LimitUse {
  readonly name: string;
  readonly use: number;
  readonly limit: number;
  readonly share: number;
}

export interface ScenarioResult {
  readonly scenario: Scenario;
  readonly keysPerTenant: number;
  readonly concurrency: number;
  /** Seconds for one function to scale from nothing to `concurrency`, at AWS's scaling rate. */
  readonly rampS: number;
  readonly secretsPerS: number;
  readonly stsPerS: number;
  readonly aggregator?: AggregatorLoad;
  /** The hottest key of each table and pattern, hottest first. */
  readonly partitions: readonly PartitionRate[];
  readonly tables: readonly { readonly table: string; readonly wruPerS: number; readonly rruPerS: number }[];
  /** Every limit checked, the most used first: `limits[0]` is the one hit first as the rate grows. */
  readonly limits: readonly LimitUse[];
}

const use = (name: string, value: number, limit: number): LimitUse => ({
  name,
  use: value,
  limit,
  share: value / limit,
});

/** A kind's measured profile at a deployment's rate, against AWS's limits. */
export function modelScenario(
  profile: KindProfile,
  scenario: Scenario,
  services: ServiceCalls,
  constants: ModelConstants,
): ScenarioResult {
  const { rate, tenants, durationS } = scenario;
  const tenantRate = rate / tenants;
  const keysPerTenant = Math.max(1, Math.ceil((tenantRate * 60) / constants.maxKeyRequestsPerMinute));
  const scopeRate: Record<Exclude<Scope, 'request'>, number> = {
    key: tenantRate / keysPerTenant,
    tenant: tenantRate,
    shared: rate,
  };
  const hottest = new Map<string, PartitionRate>();
  for (const load of profile.partitions) {
    if (load.scope === 'request') continue;
    const wcuPerS = load.wcuPerRequest * scopeRate[load.scope];
    const rcuPerS = load.rcuPerRequest * scopeRate[load.scope];
    const share = Math.max(wcuPerS / AWS_LIMITS.partitionWcuPerS, rcuPerS / AWS_LIMITS.partitionRcuPerS);
    const id = `${load.table}: ${load.pattern}`;
    const known = hottest.get(id);
    if (!known || share > known.share)
      hottest.set(id, {
        table: load.table,
        pattern: load.pattern,
        pk: load.pk,
        scope: load.scope,
        wcuPerS,
        rcuPerS,
        share,
      });
  }
  const aggregator = aggregatorLoad(
    rate * profile.ledgerEntriesPerRequest,
    tenants,
    keysPerTenant,
    constants.aggregator,
  );
  const usageTable = profile.tables.find((t) =>
    profile.partitions.some((p) => p.table === t.table && LEDGER_SHARD.test(p.pk)),
  )?.table;
  if (aggregator && usageTable) {
    const add = (pattern: string, pk: string, scope: Scope, wcuPerS: number, rcuPerS: number) =>
      hottest.set(`${usageTable}: ${pattern}`, {
        table: usageTable,
        pattern,
        pk,
        scope,
        wcuPerS,
        rcuPerS,
        share: Math.max(wcuPerS / AWS_LIMITS.partitionWcuPerS, rcuPerS / AWS_LIMITS.partitionRcuPerS),
      });
    add('ACCOUNT#<id>#TOTALS', 'ACCOUNT#<id>#TOTALS', 'tenant', aggregator.tenantTotalsWcuPerS, 0);
    add('AGGREGATOR', 'AGGREGATOR', 'shared', aggregator.checkpointWcuPerS, aggregator.checkpointRcuPerS);
  }
  const partitions = [...hottest.values()].sort((a, b) => b.share - a.share);
  const tables = profile.tables
    .map((t) => {
      const extra =
        aggregator && t.table === usageTable
          ? {
              wru: tenants * aggregator.tenantTotalsWcuPerS + aggregator.checkpointWcuPerS,
              rru: aggregator.checkpointRcuPerS,
            }
          : { wru: 0, rru: 0 };
      return {
        table: t.table,
        wruPerS: t.wcuPerRequest * rate + extra.wru,
        rruPerS: t.rcuPerRequest * rate + extra.rru,
      };
    })
    .sort((a, b) => b.wruPerS / AWS_LIMITS.tableInitialWruPerS - a.wruPerS / AWS_LIMITS.tableInitialWruPerS);

  const concurrency = rate * durationS;
  const rampS = Math.max(0, Math.ceil(concurrency / AWS_LIMITS.lambdaScalingPer10s) - 1) * 10;
  // A burst of cold starts (up to one scaling step at once) each read their secrets; warm
  // instances read them again once per cache period.
  const coldBurst = Math.min(concurrency, AWS_LIMITS.lambdaScalingPer10s);
  const perServiceRate = (perRequest: number, perColdStart: number) =>
    rate * perRequest + coldBurst * perColdStart + (concurrency * perColdStart) / constants.secretCacheS;
  const secretsPerS = perServiceRate(services.secretsPerRequest, services.secretsPerColdStart);
  const tenantStsPerS = constants.tenantSessions
    ? tenantSessionCalls(constants.tenantSessions, { rate, tenants, concurrency, coldBurst })
    : 0;
  const stsPerS = perServiceRate(services.stsPerRequest, services.stsPerColdStart) + tenantStsPerS;

  const hottestWrites = [...partitions].sort((a, b) => b.wcuPerS - a.wcuPerS)[0];
  const hottestReads = [...partitions].sort((a, b) => b.rcuPerS - a.rcuPerS)[0];
  const busiestWrites = [...tables].sort((a, b) => b.wruPerS - a.wruPerS)[0];
  const busiestReads = [...tables].sort((a, b) => b.rruPerS - a.rruPerS)[0];
  const name = (p: { table: string; pattern?: string } | undefined) =>
    p ? `${p.table}${p.pattern ? `: ${p.pattern}` : ''}` : 'none';
  const limits = [
    use(`partition writes, WCU/s (${name(hottestWrites)})`, hottestWrites?.wcuPerS ?? 0, AWS_LIMITS.partitionWcuPerS),
    use(`partition reads, RCU/s (${name(hottestReads)})`, hottestReads?.rcuPerS ?? 0, AWS_LIMITS.partitionRcuPerS),
    use(
      `table writes, on-demand start, WRU/s (${name(busiestWrites)})`,
      busiestWrites?.wruPerS ?? 0,
      AWS_LIMITS.tableInitialWruPerS,
    ),
    use(
      `table reads, on-demand start, RRU/s (${name(busiestReads)})`,
      busiestReads?.rruPerS ?? 0,
      AWS_LIMITS.tableInitialRruPerS,
    ),
    use('API Gateway account quota, req/s', rate, AWS_LIMITS.apiGatewayRequestsPerS),
    use('Lambda concurrency (rate × duration)', concurrency, AWS_LIMITS.lambdaConcurrency),
    use('Secrets Manager GetSecretValue/s', secretsPerS, AWS_LIMITS.secretsManagerGetSecretValuePerS),
    ...(stsPerS > 0 ? [use('STS requests/s', stsPerS, AWS_LIMITS.stsRequestsPerS)] : []),
  ].sort((a, b) => b.share - a.share);
  return {
    scenario,
    keysPerTenant,
    concurrency,
    rampS,
    secretsPerS,
    stsPerS,
    ...(aggregator ? { aggregator } : {}),
    partitions,
    tables,
    limits,
  };
}
