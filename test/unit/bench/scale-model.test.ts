import {
  aggregatorLoad,
  AWS_LIMITS,
  type AggregatorSettings,
  capacityOf,
  keyPattern,
  modelScenario,
  profileOf,
  type LoggedCall,
  type MeasuredRequest,
  type ServiceCalls,
  type TouchedItem,
} from '../../../bench/scale-model.js';

/** The scale benchmark's arithmetic (bench/scale-model.ts) on fixed inputs. */

const write = (table: string, pk: string, bytes = 100, transactional = false): TouchedItem => ({
  table,
  pk,
  access: 'write',
  bytes,
  ...(transactional ? { transactional } : {}),
});
const read = (table: string, pk: string, bytes = 100, consistent = false): TouchedItem => ({
  table,
  pk,
  access: 'read',
  bytes,
  ...(consistent ? { consistent } : {}),
});
const call = (operation: string, items: TouchedItem[], error?: string): LoggedCall => ({
  operation,
  at: 0,
  items,
  ...(error ? { error, status: 400 } : { status: 200 }),
});

describe('capacityOf', () => {
  test('charges writes 1 WCU per started KB, at least 1, doubled in a transaction', () => {
    expect(capacityOf(write('t', 'p', 0))).toEqual({ wcu: 1, rcu: 0 });
    expect(capacityOf(write('t', 'p', 1024))).toEqual({ wcu: 1, rcu: 0 });
    expect(capacityOf(write('t', 'p', 1025))).toEqual({ wcu: 2, rcu: 0 });
    expect(capacityOf(write('t', 'p', 1025, true))).toEqual({ wcu: 4, rcu: 0 });
  });

  test('charges reads 1 RCU per started 4 KB, half when eventually consistent, a read of nothing the minimum', () => {
    expect(capacityOf(read('t', 'p', 0))).toEqual({ wcu: 0, rcu: 0.5 });
    expect(capacityOf(read('t', 'p', 4096))).toEqual({ wcu: 0, rcu: 0.5 });
    expect(capacityOf(read('t', 'p', 4097))).toEqual({ wcu: 0, rcu: 1 });
    expect(capacityOf(read('t', 'p', 4097, true))).toEqual({ wcu: 0, rcu: 2 });
    expect(capacityOf({ ...read('t', 'p', 4096), transactional: true })).toEqual({ wcu: 0, rcu: 2 });
  });
});

test('keyPattern keeps the kinds of a partition key and hides its values', () => {
  expect(keyPattern('ACCOUNT#acc_3f9a')).toBe('ACCOUNT#<id>');
  expect(keyPattern('RATE#key:k_12')).toBe('RATE#<id>');
  expect(keyPattern('ACCOUNT#acc_3f9a#SHARD#7')).toBe('ACCOUNT#<id>#SHARD#<id>');
  expect(keyPattern('KEY#ABC123')).toBe('KEY#<id>');
  expect(keyPattern('USAGE_DAY#2026-11-24')).toBe('USAGE_DAY#<id>');
  expect(keyPattern('')).toBe('(whole table)');
});

/**
 * Two tenants of two keys each, three requests per key (12 in all). Every request commits a ledger
 * transaction on its tenant's ACCOUNT item (2 items, 4 WCU), reads a shared CONFIG item (0.5
 * RCU), and writes its own cached answer; the first request of each key opens its RATE window
 * (1 WCU). One throttled call and one failed condition.
 */
function fixture(): MeasuredRequest[] {
  const requests: MeasuredRequest[] = [];
  for (let i = 0; i < 12; i++) {
    const key = i % 4;
    const tenant = Math.floor(key / 2);
    const first = i < 4;
    const calls: LoggedCall[] = [
      call('TransactWriteItems', [
        write('gateway-usage', `ACCOUNT#t${tenant}`, 200, true),
        write('gateway-usage', `ACCOUNT#t${tenant}`, 300, true),
      ]),
      call('GetItem', [read('gateway-cache', 'CONFIG#global')]),
      call('BatchWriteItem', [write('gateway-cache', `RESPONSE#r${i}`, 3000)]),
    ];
    if (first) calls.push(call('UpdateItem', [write('gateway-cache', `RATE#key:k${key}`)]));
    if (i === 0)
      calls.push(call('UpdateItem', [write('gateway-cache', `RATE#key:k${key}`)], 'ConditionalCheckFailedException'));
    if (i === 1)
      calls.push(
        call(
          'TransactWriteItems',
          [write('gateway-usage', 'ACCOUNT#t0', 200, true)],
          'ProvisionedThroughputExceededException',
        ),
      );
    requests.push({ tenant, key, calls });
  }
  return requests;
}

const tableName = (physical: string) => physical.replace(/^gateway-/, '');

describe('profileOf', () => {
  const profile = profileOf(fixture(), tableName);

  test('counts calls and capacity per request per table; a throttled call is not charged, a failed condition is', () => {
    expect(profile.requests).toBe(12);
    expect(profile.throttledCalls).toBe(1);
    expect(profile.failedCalls).toBe(1);
    const byTable = Object.fromEntries(profile.tables.map((t) => [t.table, t]));
    expect(Object.keys(byTable)).toEqual(['cache', 'usage']);
    expect(byTable['usage']!.callsPerRequest).toBe(1);
    expect(byTable['usage']!.wcuPerRequest).toBe(4);
    expect(byTable['usage']!.rcuPerRequest).toBe(0);
    // Per request: GetItem 1, BatchWriteItem 1, UpdateItem (4 + 1) / 12.
    expect(byTable['cache']!.callsPerRequest).toBe(2 + 5 / 12);
    expect(Object.fromEntries(byTable['cache']!.operations)).toEqual({
      GetItem: 1,
      BatchWriteItem: 1,
      UpdateItem: 5 / 12,
    });
    // 3 KB answers: 3 WCU each; the RATE writes 5 / 12.
    expect(byTable['cache']!.wcuPerRequest).toBe(3 + 5 / 12);
    expect(byTable['cache']!.rcuPerRequest).toBe(0.5);
  });

  test("tells each partition key's scope by who touched it, and its load per request of that scope", () => {
    const of = (pk: string) => profile.partitions.find((p) => p.pk === pk)!;
    expect(of('ACCOUNT#t0')).toMatchObject({
      table: 'usage',
      pattern: 'ACCOUNT#<id>',
      scope: 'tenant',
      wcuPerRequest: 4,
    });
    expect(of('CONFIG#global')).toMatchObject({ scope: 'shared', rcuPerRequest: 0.5, wcuPerRequest: 0 });
    expect(of('RESPONSE#r3')).toMatchObject({ scope: 'request', wcuPerRequest: 3 });
    // Key 0 opened its window once and failed a condition once over its 3 requests. Each RATE
    // item was touched by one request only, but there are few of them: not a per-request key.
    expect(of('RATE#key:k0')).toMatchObject({ scope: 'key', wcuPerRequest: 2 / 3 });
    expect(of('RATE#key:k1')).toMatchObject({ scope: 'key', wcuPerRequest: 1 / 3 });
  });

  test("judges scope over a key pattern: a tenant's shard touched by only one of its keys is still the tenant's", () => {
    const shards = profileOf(
      [
        { tenant: 0, key: 0, calls: [call('PutItem', [write('gateway-usage', 'ACCOUNT#a#SHARD#0')])] },
        { tenant: 0, key: 1, calls: [call('PutItem', [write('gateway-usage', 'ACCOUNT#a#SHARD#1')])] },
        { tenant: 0, key: 0, calls: [call('PutItem', [write('gateway-usage', 'ACCOUNT#a#SHARD#1')])] },
        { tenant: 0, key: 0, calls: [call('PutItem', [write('gateway-usage', 'ACCOUNT#a#SHARD#0')])] },
      ],
      tableName,
    );
    expect(shards.partitions.map((p) => [p.pk, p.scope, p.wcuPerRequest])).toEqual([
      ['ACCOUNT#a#SHARD#0', 'tenant', 0.5],
      ['ACCOUNT#a#SHARD#1', 'tenant', 0.5],
    ]);
  });

  test('a pattern with a new key for nearly every request is per request, even with a write landed on the next one', () => {
    const answers = profileOf(
      Array.from({ length: 20 }, (_, i) => ({
        tenant: i % 2,
        key: Math.floor(i / 32),
        calls: [
          call('GetItem', [read('gateway-cache', `RESPONSE#r${i}`)]),
          // Request 5's answer was written late, while request 6 was measured.
          call('BatchWriteItem', [write('gateway-cache', `RESPONSE#r${i === 6 ? 5 : i}`)]),
        ],
      })),
      tableName,
    );
    expect(new Set(answers.partitions.map((p) => p.scope))).toEqual(new Set(['request']));
    expect(answers.partitions.find((p) => p.pk === 'RESPONSE#r5')).toMatchObject({
      wcuPerRequest: 1,
      rcuPerRequest: 0.25,
    });
  });

  test('names an index partition after its table', () => {
    const indexed = profileOf(
      [0, 1].map((i) => ({
        tenant: 0,
        key: 0,
        calls: [call('PutItem', [{ ...write('gateway-identity', `KEY#${i}`), index: 'byOwner', pk: 'ACCOUNT#a' }])],
      })),
      tableName,
    );
    expect(indexed.partitions).toEqual([
      {
        table: 'identity/byOwner',
        pk: 'ACCOUNT#a',
        pattern: 'ACCOUNT#<id>',
        scope: 'key',
        wcuPerRequest: 1,
        rcuPerRequest: 0,
      },
    ]);
  });
});

describe('modelScenario', () => {
  const profile = profileOf(fixture(), tableName);
  const services: ServiceCalls = { secretsPerRequest: 0, secretsPerColdStart: 1, stsPerRequest: 0, stsPerColdStart: 0 };
  const aggregator: AggregatorSettings = {
    batchSize: 10_000,
    batchingWindowS: 5,
    payloadBytes: 6_000_000,
    recordBytes: 1_200,
    totalsPerTransaction: 99,
    pairsPerKey: 1,
  };
  const constants = { maxKeyRequestsPerMinute: 10_000, secretCacheS: 300, aggregator };

  test('one tenant at 10,000 req/s: 60 keys, the tenant partition takes every request, the key ones a sixtieth', () => {
    const result = modelScenario(
      profile,
      { kind: 'stream', tenants: 1, rate: 10_000, durationS: 20 },
      services,
      constants,
    );
    expect(result.keysPerTenant).toBe(60);
    const byPattern = Object.fromEntries(result.partitions.map((p) => [`${p.table}: ${p.pattern}`, p]));
    expect(byPattern['usage: ACCOUNT#<id>']).toMatchObject({ wcuPerS: 40_000, rcuPerS: 0, share: 40, scope: 'tenant' });
    expect(byPattern['cache: RATE#<id>']!.wcuPerS).toBeCloseTo(((2 / 3) * 10_000) / 60);
    expect(byPattern['cache: CONFIG#<id>']).toMatchObject({ wcuPerS: 0, rcuPerS: 5_000, scope: 'shared' });
    expect(byPattern['cache: RESPONSE#<id>#<id>']).toBeUndefined();
    expect(result.partitions[0]!.pattern).toBe('ACCOUNT#<id>');

    expect(result.tables).toEqual([
      { table: 'usage', wruPerS: 40_000, rruPerS: 0 },
      { table: 'cache', wruPerS: expect.closeTo((3 + 5 / 12) * 10_000) as number, rruPerS: 5_000 },
    ]);
    expect(result.concurrency).toBe(200_000);
    expect(result.rampS).toBe(1_990);
    // A burst of 1,000 cold starts, plus 200,000 instances rereading every 300 s.
    expect(result.secretsPerS).toBeCloseTo(1_000 + 200_000 / 300);
    expect(result.stsPerS).toBe(0);
    expect(result.limits.map((l) => l.name)).not.toContain('STS requests/s');
    expect(result.limits[0]).toMatchObject({ name: 'Lambda concurrency (rate × duration)', share: 200 });
    const partitionWrites = result.limits.find((l) => l.name.startsWith('partition writes'))!;
    expect(partitionWrites).toMatchObject({
      name: 'partition writes, WCU/s (usage: ACCOUNT#<id>)',
      use: 40_000,
      limit: AWS_LIMITS.partitionWcuPerS,
      share: 40,
    });
    const shares = result.limits.map((l) => l.share);
    expect(shares).toEqual([...shares].sort((a, b) => b - a));
  });

  test('a hundred tenants at 1,000 req/s: 10 req/s each over one key, the shared partition takes all', () => {
    const result = modelScenario(
      profile,
      { kind: 'non-streamed', tenants: 100, rate: 1_000, durationS: 0.5 },
      { ...services, stsPerRequest: 0.1 },
      constants,
    );
    expect(result.keysPerTenant).toBe(1);
    const byPattern = Object.fromEntries(result.partitions.map((p) => [p.pattern, p]));
    expect(byPattern['ACCOUNT#<id>']!.wcuPerS).toBe(40);
    expect(byPattern['RATE#<id>']!.wcuPerS).toBeCloseTo((2 / 3) * 10);
    expect(byPattern['CONFIG#<id>']!.rcuPerS).toBe(500);
    expect(result.concurrency).toBe(500);
    expect(result.rampS).toBe(0);
    expect(result.stsPerS).toBeCloseTo(100);
    expect(result.limits.find((l) => l.name === 'STS requests/s')!.limit).toBe(AWS_LIMITS.stsRequestsPerS);
    // The usage table at 4,000 WRU/s is at its on-demand start exactly: the limit reached first.
    expect(result.limits[0]).toMatchObject({ name: 'table writes, on-demand start, WRU/s (usage)', share: 1 });
  });

  test("the aggregator is modelled per stream batch, not per request: big batches keep a busy tenant's totals cool", () => {
    // 10,000 entries a second: 10 stream shards of 1,000 a second, full batches of 5,000 (the
    // payload's cap), one every 5 s a shard; one tenant over 60 keys: 120 totals items a batch.
    const busy = aggregatorLoad(10_000, 1, 60, aggregator)!;
    expect(busy).toMatchObject({ shards: 10, batchesPerShardS: 0.2, recordsPerBatch: 5_000 });
    expect(busy.tenantTotalsWcuPerS).toBeCloseTo(10 * 0.2 * 120 * 2);
    expect(busy.checkpointWcuPerS).toBeCloseTo(10 * 0.2 * 2 * 2); // two transactions a batch
    expect(busy.checkpointRcuPerS).toBeCloseTo(2);
    // One-second batches of at most 1,000 would write five times as much to the same partition.
    expect(
      aggregatorLoad(10_000, 1, 60, { ...aggregator, batchSize: 1_000, batchingWindowS: 1 })!.tenantTotalsWcuPerS,
    ).toBeCloseTo(2_400);
    // A trickle: a batch per record, never more batches than records.
    expect(aggregatorLoad(0.1, 1, 1, aggregator)).toMatchObject({
      shards: 1,
      batchesPerShardS: 0.1,
      recordsPerBatch: 1,
    });
    expect(aggregatorLoad(0, 1, 1, aggregator)).toBeUndefined();
  });

  test("the ledger's entries bring the aggregator's partitions into the scenario, and its own calls stay out of the per-request loads", () => {
    // 64 requests over the 32 shards: each shard seen twice, so the pattern is the tenant's.
    const requests: MeasuredRequest[] = Array.from({ length: 64 }, (_, i) => ({
      tenant: 0,
      key: Math.floor(i / 32),
      calls: [
        call('PutItem', [write('gateway-usage', `ACCOUNT#a#L${i % 32}`)]),
        ...(i % 16 === 0
          ? [
              call('GetItem', [{ ...read('gateway-usage', 'AGGREGATOR'), consistent: true }]),
              call('TransactWriteItems', [
                { ...write('gateway-usage', 'ACCOUNT#a#TOTALS'), transactional: true },
                { ...write('gateway-usage', 'AGGREGATOR'), transactional: true },
              ]),
            ]
          : []),
      ],
    }));
    const ledgerOnly = profileOf(requests, tableName);
    expect(ledgerOnly.ledgerEntriesPerRequest).toBe(1);
    expect(ledgerOnly.aggregatorCalls).toBe(8);
    expect(ledgerOnly.tables).toEqual([
      expect.objectContaining({ table: 'usage', callsPerRequest: 1, wcuPerRequest: 1, rcuPerRequest: 0 }),
    ]);
    const result = modelScenario(
      ledgerOnly,
      { kind: 'x', tenants: 1, rate: 10_000, durationS: 1 },
      services,
      constants,
    );
    const byPattern = Object.fromEntries(result.partitions.map((p) => [p.pattern, p]));
    expect(byPattern['ACCOUNT#<id>#TOTALS']).toMatchObject({ scope: 'tenant', wcuPerS: expect.closeTo(480) as number });
    expect(byPattern['AGGREGATOR']).toMatchObject({ scope: 'shared', wcuPerS: expect.closeTo(8) as number });
    // A ledger shard at a 32nd of the tenant's 10,000 writes a second.
    expect(byPattern['ACCOUNT#<id>#<id>']!.wcuPerS).toBeCloseTo(10_000 / 32, 0);
    expect(result.tables[0]).toMatchObject({ table: 'usage', wruPerS: expect.closeTo(10_000 + 480 + 8) as number });
    expect(result.partitions[0]!.share).toBeLessThan(1);
  });
});
