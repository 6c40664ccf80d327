import type { DynamoDBRecord } from 'aws-lambda';
import { createDynamoDb, type DynamoDb } from '../../../lambdas/store/dynamodb-client.js';
import { toItem } from '../../../lambdas/store/dynamo.js';
import { readCheckpoint } from '../../../lambdas/store/usage-checkpoints.js';
import type { UsageEntry } from '../../../lambdas/store/usage-items.js';
import { putLedgerEntries } from '../../../lambdas/store/usage-ledger-puts.js';
import { ledgerShardPk } from '../../../lambdas/store/usage-ledger-shards.js';
import { totalsPk } from '../../../lambdas/store/usage-totals.js';
import { aggregateShardBatch, type AggregatorDeps } from '../../../lambdas/usage/stream-aggregation.js';
import {
  AggregatorConfigurationError,
  aggregateStreamEvent,
  type AggregatorEvent,
} from '../../../lambdas/usage/usage-aggregator.js';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';
import { deliverShard, sumsOf, totalsOf, usageEntry, type UsageTable } from '../../support/usage-pipeline-harness.js';
import {
  faultyTransactions,
  SimulatedStream,
  streamingPuts,
  type TransactionFault,
} from '../../support/usage-stream.js';

// The aggregator against the embedded DynamoDB, fed with the stream records its ledger puts
// make. Faults are injected only where the embedded DynamoDB cannot make them happen on cue:
// a transaction conflict, a throttle, an answer lost after the write.

const local = useLocalDynamoDb('aggregator');
let usage: UsageTable;
beforeAll(() => {
  const db = createDynamoDb({
    endpoint: local().endpoint,
    region: 'us-east-1',
    credentials: () => ({ accessKeyId: 'test', secretAccessKey: 'test' }),
  });
  usage = { db, table: local().tableNames.usage };
});

let run = 0;
/** A fresh account and shard id per test, so tests share the table without sharing totals. */
function world(shardCount = 1) {
  run++;
  return { accountId: `agg-${run}`, shardId: `shard-${run}`, stream: new SimulatedStream(shardCount) };
}

const deps = (db: Pick<DynamoDb, 'getItem' | 'transactWriteItems'>, maxRounds?: number): AggregatorDeps => ({
  db,
  table: usage.table,
  sleep: async () => {},
  random: () => 0.5,
  ...(maxRounds === undefined ? {} : { maxRounds }),
});

async function writeLedger(stream: SimulatedStream, entries: readonly UsageEntry[]) {
  const outcome = await putLedgerEntries(entries, { db: streamingPuts(usage.db, stream), table: usage.table });
  expect(outcome.failed).toEqual([]);
}

/** Entries of one account spread over days, hours, models, routes and keys (one without a key). */
function variedEntries(accountId: string, count: number): UsageEntry[] {
  return Array.from({ length: count }, (_, i) =>
    usageEntry({
      accountId,
      requestId: `r-${i}`,
      sequence: i % 2,
      model: i % 3 === 0 ? 'claude-sonnet-4-5' : 'gpt-5',
      route: i % 4 === 0 ? 'battle' : 'chat-completions',
      ...(i % 5 === 0 ? { keyId: undefined } : { keyId: `key-${i % 2}` }),
      at: `2026-07-0${1 + (i % 2)}T1${i % 3}:00:0${i % 10}.000Z`,
      promptTokens: 10 + i,
      completionTokens: i,
      costMicroUsd: 100 * i,
      priced: i % 7 !== 0,
      ...(i % 6 === 0 ? { unit: 'characters' as const, quantity: 40 + i } : {}),
    }),
  );
}

const invoker =
  (db: Pick<DynamoDb, 'getItem' | 'transactWriteItems'>, maxRounds?: number) => (event: AggregatorEvent) =>
    aggregateStreamEvent(event, deps(db, maxRounds));

async function expectExact(accountId: string, entries: readonly UsageEntry[]) {
  expect(await totalsOf(usage, accountId, 'day')).toEqual(sumsOf(entries, 'day'));
  expect(await totalsOf(usage, accountId, 'hour')).toEqual(sumsOf(entries, 'hour'));
}

test('each ledger insert is added once to its day and hour totals, split by model, route and key', async () => {
  const { accountId, shardId, stream } = world();
  const entries = variedEntries(accountId, 30);
  await writeLedger(stream, entries);
  await deliverShard(stream.shards[0]!, shardId, invoker(usage.db), { batchSizes: [7] });
  await expectExact(accountId, entries);
  const sample = entries[1]!;
  expect(sample).toMatchObject({ model: 'gpt-5', route: 'chat-completions', keyId: 'key-1' });
  const hour = sample.at.slice(0, 13);
  const item = await usage.db.getItem({
    TableName: usage.table,
    Key: toItem({ pk: totalsPk(accountId), sk: `HOUR#${hour}#gpt-5#chat-completions#key-1` }),
  });
  expect(item.Item).toMatchObject({
    type: { S: 'hour' },
    day: { S: hour.slice(0, 10) },
    hour: { S: hour },
    keyId: { S: 'key-1' },
    model: { S: 'gpt-5' },
    route: { S: 'chat-completions' },
  });
});

test('a batch delivered again (its response lost on the way back) adds nothing', async () => {
  const { accountId, shardId, stream } = world();
  const entries = variedEntries(accountId, 12);
  await writeLedger(stream, entries);
  const db = faultyTransactions(usage.db);
  await deliverShard(stream.shards[0]!, shardId, invoker(db), { batchSizes: [5], deliveries: 3 });
  await expectExact(accountId, entries);
  // Three batches, each applied once; the copies found the checkpoint past them.
  expect(db.transactions).toBe(3);
});

test.each<[string, TransactionFault[]]>([
  ['a transaction conflict', ['conflict']],
  ['a throttled transaction', ['throttle', 'throttle']],
  ['a transaction that landed but whose answer was lost', ['lose-answer']],
])('%s is retried inside the handler and counts once', async (_name, faults) => {
  const { accountId, shardId, stream } = world();
  const entries = variedEntries(accountId, 8);
  await writeLedger(stream, entries);
  const db = faultyTransactions(usage.db, faults);
  const response = await aggregateStreamEvent({ Records: stream.shards[0]!, shardId }, deps(db));
  expect(response).toEqual({ state: {}, batchItemFailures: [] });
  expect(faults).toEqual([]);
  await expectExact(accountId, entries);
});

test('when the rounds run out the records are reported from the first unapplied one; their redelivery completes the totals', async () => {
  const { accountId, shardId, stream } = world();
  const entries = variedEntries(accountId, 6);
  await writeLedger(stream, entries);
  const records = stream.shards[0]!;
  const db = faultyTransactions(usage.db, ['throttle', 'throttle']);
  const first = await aggregateStreamEvent({ Records: records, shardId }, deps(db, 2));
  expect(first.batchItemFailures).toEqual(records.map((r) => ({ itemIdentifier: r.dynamodb!.SequenceNumber })));
  expect(await totalsOf(usage, accountId)).toEqual({});
  await deliverShard(records, shardId, invoker(db, 2));
  await expectExact(accountId, entries);
});

test('a restarted aggregator reads the checkpoint and applies only what is past it', async () => {
  const { accountId, shardId, stream } = world();
  const entries = variedEntries(accountId, 10);
  await writeLedger(stream, entries);
  const records = stream.shards[0]!;
  await deliverShard(records.slice(0, 4), shardId, invoker(usage.db));
  // A new instance, and the mapping starting over from the shard's oldest record.
  const restarted = faultyTransactions(usage.db);
  await deliverShard(records, shardId, invoker(restarted), { batchSizes: [3] });
  await expectExact(accountId, entries);
  expect(await readCheckpoint(usage.db, usage.table, shardId)).toBe(records.at(-1)!.dynamodb!.SequenceNumber);
});

test('two deliveries of one batch at once apply it once: the checkpoint condition refuses the second', async () => {
  const { accountId, shardId, stream } = world();
  const entries = variedEntries(accountId, 9);
  await writeLedger(stream, entries);
  const records = stream.shards[0]!;
  const outcomes = await Promise.all([
    aggregateShardBatch({ shardId, records }, deps(usage.db)),
    aggregateShardBatch({ shardId, records }, deps(usage.db)),
  ]);
  expect(outcomes.map((o) => o.failed)).toEqual([[], []]);
  expect(outcomes.map((o) => o.applied).sort()).toEqual([0, 9]);
  await expectExact(accountId, entries);
});

test('a batch with more totals items than one transaction holds is applied in consecutive transactions', async () => {
  const { accountId, shardId, stream } = world();
  // Every entry its own model: two new totals items each, so 49 entries (98 items) per transaction.
  const entries = Array.from({ length: 60 }, (_, i) =>
    usageEntry({ accountId, requestId: `wide-${i}`, model: `model-${i}` }),
  );
  await writeLedger(stream, entries);
  const records = stream.shards[0]!;
  // Puts run concurrently: the stream has the entries in the order they landed.
  const landed = records.map((r) => entries.find((e) => e.requestId === r.dynamodb!.NewImage!['requestId']!.S)!);

  // The second transaction is throttled past the last round: the first stays applied.
  const db = faultyTransactions(usage.db, ['none', 'throttle']);
  const outcome = await aggregateShardBatch({ shardId, records }, deps(db, 1));
  expect(db.transactions).toBe(1);
  expect(outcome.applied).toBe(49);
  expect(outcome.failed).toEqual(records.slice(49).map((r) => r.dynamodb!.SequenceNumber));
  expect(await readCheckpoint(usage.db, usage.table, shardId)).toBe(records[48]!.dynamodb!.SequenceNumber);
  await expectExact(accountId, landed.slice(0, 49));

  await deliverShard(records, shardId, invoker(db), { batchSizes: [100] });
  expect(db.transactions).toBe(2);
  await expectExact(accountId, entries);
});

test('records of other items (totals, checkpoints, the unsharded ledger, a changed entry) add nothing and write nothing', async () => {
  const { accountId, shardId, stream } = world();
  const entry = usageEntry({ accountId });
  stream.append(
    toItem({ pk: totalsPk(accountId), sk: 'DAY#2026-07-01#gpt-5#chat-completions#key-1', type: 'day', requests: 1 }),
  );
  stream.append(toItem({ pk: 'AGGREGATOR', sk: 'shard-x', type: 'checkpoint', lastSequence: '1' }), 'MODIFY');
  stream.append(toItem({ pk: `ACCOUNT#${accountId}`, sk: 'LEDGER#x', type: 'ledger', ...entry }));
  stream.append(toItem({ pk: ledgerShardPk(accountId, 3), sk: 'LEDGER#y', type: 'ledger', ...entry }), 'MODIFY');
  const db = faultyTransactions(usage.db);
  const response = await aggregateStreamEvent({ Records: stream.shards[0]!, shardId }, deps(db));
  expect(response.batchItemFailures).toEqual([]);
  expect(db.transactions).toBe(0);
  expect(await totalsOf(usage, accountId)).toEqual({});
});

test('an unreadable ledger record stops the batch there: the records before it are applied, it and the rest reported', async () => {
  const { accountId, shardId, stream } = world();
  const entries = variedEntries(accountId, 4);
  await writeLedger(stream, entries.slice(0, 2));
  const bad = stream.append(
    toItem({ pk: ledgerShardPk(accountId, 0), sk: 'LEDGER#bad', type: 'ledger', ...entries[2], promptTokens: -1 }),
  );
  await writeLedger(stream, entries.slice(3));
  const records = stream.shards[0]!;
  const response = await aggregateStreamEvent({ Records: records, shardId }, deps(usage.db));
  expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(
    records.slice(2).map((r) => r.dynamodb!.SequenceNumber),
  );
  expect(response.batchItemFailures[0]!.itemIdentifier).toBe(bad.dynamodb!.SequenceNumber);
  await expectExact(accountId, entries.slice(0, 2));
});

test('a batch without a shard id fails whole: without a checkpoint its entries could count twice', async () => {
  const { accountId, stream } = world();
  await writeLedger(stream, [usageEntry({ accountId })]);
  const event: AggregatorEvent = { Records: stream.shards[0]! };
  await expect(aggregateStreamEvent(event, deps(usage.db))).rejects.toBeInstanceOf(AggregatorConfigurationError);
  expect(await totalsOf(usage, accountId)).toEqual({});
});

test("a tumbling window's closing call (no records) is answered with a state", async () => {
  const empty: DynamoDBRecord[] = [];
  expect(await aggregateStreamEvent({ Records: empty, isFinalInvokeForWindow: true }, deps(usage.db))).toEqual({
    state: {},
    batchItemFailures: [],
  });
});
