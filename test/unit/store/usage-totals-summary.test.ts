import fc from 'fast-check';
import { createDynamoDb, type DynamoDb } from '../../../lambdas/store/dynamodb-client.js';
import type { UsageEntry } from '../../../lambdas/store/usage-items.js';
import { shardedLedgerItem } from '../../../lambdas/store/usage-ledger-shards.js';
import { putLedgerEntries } from '../../../lambdas/store/usage-ledger-puts.js';
import { addLedgerItem, emptySummary } from '../../../lambdas/store/usage-summary.js';
import { splitWhole, summarizeTotals } from '../../../lambdas/store/usage-totals-summary.js';
import { aggregateStreamEvent } from '../../../lambdas/usage/usage-aggregator.js';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';
import { deliverShard, usageEntry, type UsageTable } from '../../support/usage-pipeline-harness.js';
import { SimulatedStream, streamingPuts } from '../../support/usage-stream.js';

// Usage of any period from the derived totals: whole days from day totals, whole hours from
// hour totals, and only the partial hours at the edges from the ledger's shards.

const local = useLocalDynamoDb('totals-summary');
let usage: UsageTable;
const accountId = 'summary-1';
const START = Date.parse('2026-09-01T00:00:00.000Z');
const SPAN = 3 * 86_400_000;
let entries: UsageEntry[];

beforeAll(async () => {
  usage = {
    db: createDynamoDb({
      endpoint: local().endpoint,
      region: 'us-east-1',
      credentials: () => ({ accessKeyId: 'test', secretAccessKey: 'test' }),
    }),
    table: local().tableNames.usage,
  };
  // 240 entries over three days, about one every 18 minutes, on two models, routes and keys.
  entries = Array.from({ length: 240 }, (_, i) =>
    usageEntry({
      accountId,
      requestId: `s-${i}`,
      model: i % 2 ? 'gpt-5' : 'claude-sonnet-4-5',
      route: i % 3 ? 'chat-completions' : 'battle',
      keyId: i % 5 ? 'key-1' : 'key-2',
      at: new Date(START + Math.floor((i * SPAN) / 240) + (i % 7) * 1_000).toISOString(),
      promptTokens: i,
      completionTokens: 2 * i,
      costMicroUsd: 10 * i,
      priced: i % 11 !== 0,
      ...(i % 9 === 0 ? { unit: 'seconds' as const, quantity: i } : {}),
    }),
  );
  const stream = new SimulatedStream(1);
  await putLedgerEntries(entries, { db: streamingPuts(usage.db, stream), table: usage.table });
  await deliverShard(
    stream.shards[0]!,
    'summary-shard',
    (event) =>
      aggregateStreamEvent(event, { db: usage.db, table: usage.table, sleep: async () => {}, random: () => 0 }),
    { batchSizes: [50] },
  );
}, 60_000);

/** What the entries in [from, to] add up to, entry by entry. */
function expected(fromMs: number, toMs: number) {
  const summary = emptySummary();
  for (const entry of entries) {
    const at = Date.parse(entry.at);
    if (at >= fromMs && at <= toMs) addLedgerItem(summary, shardedLedgerItem(entry));
  }
  return summary;
}

/** Counts the ledger items a summary reads (queries of the `#L<n>` partitions). */
function counting(db: DynamoDb) {
  const reader = {
    ledgerItems: 0,
    db: {
      query: async (input: Parameters<DynamoDb['query']>[0]) => {
        const page = await db.query(input);
        if (/#L\d+$/.test(String(input.ExpressionAttributeValues?.[':pk']?.S)))
          reader.ledgerItems += page.Items?.length ?? 0;
        return page;
      },
    },
    table: usage.table,
  };
  return reader;
}

test('any period adds up to what its entries add up to, reading entries only in its partial edge hours', async () => {
  const instant = fc.integer({ min: START - 7_200_000, max: START + SPAN + 7_200_000 });
  await fc.assert(
    fc.asyncProperty(instant, instant, async (a, b) => {
      const [fromMs, toMs] = a <= b ? [a, b] : [b, a];
      const reader = counting(usage.db);
      expect(await summarizeTotals(reader, accountId, fromMs, toMs)).toEqual(expected(fromMs, toMs));
      const hourMs = 3_600_000;
      const inEdgeHours = entries.filter((entry) => {
        const at = Date.parse(entry.at);
        const hourStart = Math.floor(at / hourMs) * hourMs;
        const inRange = at >= fromMs && at <= toMs;
        const hourWhollyInside = hourStart >= fromMs && hourStart + hourMs - 1 <= toMs;
        return inRange && !hourWhollyInside;
      }).length;
      expect(reader.ledgerItems).toBe(inEdgeHours);
    }),
    { numRuns: 25 },
  );
}, 60_000);

test('whole days, whole hours and the edges: exact periods read no entries at all', async () => {
  const day = Date.parse('2026-09-02T00:00:00.000Z');
  const reader = counting(usage.db);
  expect(await summarizeTotals(reader, accountId, day, day + 86_400_000 - 1)).toEqual(
    expected(day, day + 86_400_000 - 1),
  );
  expect(await summarizeTotals(reader, accountId, day + 3_600_000, day + 5 * 3_600_000 - 1)).toEqual(
    expected(day + 3_600_000, day + 5 * 3_600_000 - 1),
  );
  expect(reader.ledgerItems).toBe(0);
});

test.each([
  ['a period inside one unit', 10, 20, { edges: [[10, 20]] }],
  ['exactly one unit', 100, 199, { whole: [100, 100], edges: [] }],
  [
    'a unit with edges on both sides',
    50,
    250,
    {
      whole: [100, 100],
      edges: [
        [50, 99],
        [200, 250],
      ],
    },
  ],
  ['two units and an edge after', 100, 320, { whole: [100, 200], edges: [[300, 320]] }],
])('splitWhole: %s', (_name, from, to, split) => {
  expect(splitWhole(from, to, 100)).toEqual(split);
});
