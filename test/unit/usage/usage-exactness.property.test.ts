import fc from 'fast-check';
import { createDynamoDb } from '../../../lambdas/store/dynamodb-client.js';
import { toItem } from '../../../lambdas/store/dynamo.js';
import type { UsageEntry } from '../../../lambdas/store/usage-items.js';
import { putLedgerEntries, recordLedgerEntries } from '../../../lambdas/store/usage-ledger-puts.js';
import { totalsPk } from '../../../lambdas/store/usage-totals.js';
import { aggregateStreamEvent } from '../../../lambdas/usage/usage-aggregator.js';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';
import {
  deliverShard,
  ledgerEntriesOf,
  sumsOf,
  totalsOf,
  usageEntry,
  type UsageTable,
} from '../../support/usage-pipeline-harness.js';
import {
  faultyTransactions,
  SimulatedStream,
  streamingPuts,
  type PutFault,
  type TransactionFault,
} from '../../support/usage-stream.js';

// Exactness as a property: whatever fails on the way (ledger calls refused or answered into the
// void, some of a call's statements throttled, retries, replays, stream batches delivered twice,
// transactions conflicting, throttled or landing unanswered, an aggregator restarted and the
// stream read again from its start), once the retry queue is drained and the stream delivered,
// every account's day and hour totals equal the sums of the distinct entries, and the ledger
// holds each entry exactly once.
// The retry queue is an array here: the SQS stand-in is not part of the local runtime yet.

const local = useLocalDynamoDb('exactness');
let usage: UsageTable;
beforeAll(() => {
  usage = {
    db: createDynamoDb({
      endpoint: local().endpoint,
      region: 'us-east-1',
      credentials: () => ({ accessKeyId: 'test', secretAccessKey: 'test' }),
    }),
    table: local().tableNames.usage,
  };
});

const entryArbitrary = fc.record({
  request: fc.integer({ min: 0, max: 7 }),
  sequence: fc.integer({ min: 0, max: 2 }),
  account: fc.constantFrom('a', 'b'),
  model: fc.constantFrom('gpt-5', 'claude-sonnet-4-5'),
  route: fc.constantFrom('chat-completions', 'battle'),
  keyId: fc.constantFrom(undefined, 'k1', 'k2'),
  day: fc.integer({ min: 1, max: 2 }),
  hour: fc.integer({ min: 0, max: 2 }),
  promptTokens: fc.integer({ min: 0, max: 5_000 }),
  completionTokens: fc.integer({ min: 0, max: 5_000 }),
  costMicroUsd: fc.integer({ min: 0, max: 2_000_000 }),
  priced: fc.boolean(),
  characters: fc.option(fc.integer({ min: 1, max: 900 }), { nil: undefined }),
});

const scenario = fc.record({
  entries: fc.uniqueArray(entryArbitrary, {
    minLength: 1,
    maxLength: 18,
    selector: (e) => `${e.request}#${e.sequence}`,
  }),
  requestBatches: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 4 }),
  putFaults: fc.array(fc.constantFrom<PutFault | 'ok'>('ok', 'ok', 'fail', 'lose-answer', 'throttle-odd'), {
    maxLength: 24,
  }),
  replays: fc.array(fc.nat(), { maxLength: 5 }),
  streamBatches: fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 4 }),
  deliveries: fc.integer({ min: 1, max: 2 }),
  transactionFaults: fc.array(fc.constantFrom<TransactionFault>('none', 'conflict', 'throttle', 'lose-answer'), {
    maxLength: 12,
  }),
  maxRounds: fc.integer({ min: 1, max: 4 }),
  restart: fc.boolean(),
  noise: fc.boolean(),
});

let run = 0;

test('totals equal the sum of the distinct ledger entries under retries, replays, redeliveries, faults and restarts', async () => {
  await fc.assert(
    fc.asyncProperty(scenario, async (s) => {
      run++;
      const accountOf = (name: string) => `exact-${run}-${name}`;
      const entries: UsageEntry[] = s.entries.map((e) =>
        usageEntry({
          requestId: `req-${e.request}`,
          sequence: e.sequence,
          accountId: accountOf(e.account),
          model: e.model,
          route: e.route,
          keyId: e.keyId,
          at: `2026-08-0${e.day}T0${e.hour}:1${e.request}:00.000Z`,
          promptTokens: e.promptTokens,
          completionTokens: e.completionTokens,
          costMicroUsd: e.costMicroUsd,
          priced: e.priced,
          ...(e.characters === undefined ? {} : { unit: 'characters' as const, quantity: e.characters }),
        }),
      );
      const stream = new SimulatedStream(2);
      const queue: UsageEntry[][] = [];
      const putFaults = s.putFaults.map((fault) => (fault === 'ok' ? undefined : fault)) as PutFault[];
      const requestPath = {
        db: streamingPuts(usage.db, stream, putFaults),
        table: usage.table,
        // Statements refused for capacity are sent again at once here: the rounds, not the pauses, matter.
        sleep: async () => {},
        sendToRetryQueue: async (failed: readonly UsageEntry[]) => void queue.push([...failed]),
      };

      // The request path: batches of entries as the coalescer would hand them over, then replays.
      for (let at = 0, i = 0; at < entries.length; i++) {
        const size = s.requestBatches[i % s.requestBatches.length]!;
        await recordLedgerEntries(entries.slice(at, at + size), requestPath);
        at += size;
      }
      await recordLedgerEntries(
        s.replays.map((i) => entries[i % entries.length]!),
        requestPath,
      );

      // The aggregator, part way: what the stream holds so far.
      const transactionFaults = [...s.transactionFaults];
      const invoke = () => {
        const db = faultyTransactions(usage.db, transactionFaults);
        return (event: Parameters<typeof aggregateStreamEvent>[0]) =>
          aggregateStreamEvent(event, {
            db,
            table: usage.table,
            sleep: async () => {},
            random: () => 0.5,
            maxRounds: s.maxRounds,
          });
      };
      const delivery = { batchSizes: s.streamBatches, deliveries: s.deliveries };
      const shardId = (i: number) => `exact-${run}-shard-${i}`;
      const delivered = stream.shards.map((shard) => shard.length);
      const first = invoke();
      for (const [i, shard] of stream.shards.entries()) await deliverShard([...shard], shardId(i), first, delivery);

      // Noise on the stream: writes to items that are not ledger entries.
      if (s.noise) {
        stream.append(toItem({ pk: totalsPk(accountOf('a')), sk: 'DAY#2026-08-01#gpt-5#battle#k1', type: 'day' }));
        stream.append(toItem({ pk: 'AGGREGATOR', sk: shardId(0), type: 'checkpoint', lastSequence: '1' }), 'MODIFY');
      }

      // The retry queue drained: each message's entries put again, conditionally.
      for (const message of queue) {
        const outcome = await putLedgerEntries(message, { db: streamingPuts(usage.db, stream), table: usage.table });
        expect(outcome.failed).toEqual([]);
      }

      // The rest of the stream; after a restart, a new aggregator reads each shard from its start.
      const second = s.restart ? invoke() : first;
      for (const [i, shard] of stream.shards.entries())
        await deliverShard(shard.slice(s.restart ? 0 : delivered[i]), shardId(i), second, delivery);

      for (const name of ['a', 'b']) {
        const accountId = accountOf(name);
        const mine = entries.filter((entry) => entry.accountId === accountId);
        const ledger = await ledgerEntriesOf(usage, accountId);
        expect(ledger.map(keyOf).sort()).toEqual(mine.map(keyOf).sort());
        expect(await totalsOf(usage, accountId, 'day')).toEqual(sumsOf(mine, 'day'));
        expect(await totalsOf(usage, accountId, 'hour')).toEqual(sumsOf(mine, 'hour'));
      }
    }),
    { numRuns: 30 },
  );
}, 120_000);

const keyOf = (entry: UsageEntry) => `${entry.requestId}#${entry.sequence}`;
