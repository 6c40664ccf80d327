import { createDynamoDb, DynamoDbError, type DynamoDb } from '../../../lambdas/store/dynamodb-client.js';
import { fromItem, toItem } from '../../../lambdas/store/dynamo.js';
import type { UsageEntry } from '../../../lambdas/store/usage-items.js';
import {
  LEDGER_PUT_CONCURRENCY,
  putLedgerEntries,
  recordLedgerEntries,
  UsageNotRecordedError,
} from '../../../lambdas/store/usage-ledger-puts.js';
import {
  isLedgerShardPk,
  LEDGER_SHARDS,
  ledgerShard,
  ledgerShardPk,
} from '../../../lambdas/store/usage-ledger-shards.js';
import { ledgerSk } from '../../../lambdas/store/usage-items.js';
import { batchedLedgerWriter } from '../../../lambdas/store/usage-ledger-writer.js';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';
import { ledgerEntriesOf, usageEntry, type UsageTable } from '../../support/usage-pipeline-harness.js';
import { SimulatedStream, streamingPuts, type PutFault } from '../../support/usage-stream.js';

const local = useLocalDynamoDb('ledger-puts');
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

let run = 0;
const account = () => `puts-${++run}`;

describe('ledger shards', () => {
  test("an entry's shard depends only on its request id and sequence, so a retry names the same item", () => {
    const a = ledgerShard('req-abc', 2);
    expect(ledgerShard('req-abc', 2)).toBe(a);
    expect(ledgerShardPk('acc-1', a)).toBe(`ACCOUNT#acc-1#L${a}`);
    expect(isLedgerShardPk(ledgerShardPk('acc-1', a))).toBe(true);
    for (const pk of ['ACCOUNT#acc-1', `ACCOUNT#acc-1#L${LEDGER_SHARDS}`, 'ACCOUNT#acc-1#TOTALS', 'AGGREGATOR'])
      expect([pk, isLedgerShardPk(pk)]).toEqual([pk, false]);
  });

  test("one tenant's entries spread evenly: every shard within a quarter of its share", () => {
    const counts = new Array<number>(LEDGER_SHARDS).fill(0);
    const total = 32_000;
    for (let i = 0; i < total / 2; i++) {
      counts[ledgerShard(`chatcmpl-${i.toString(36)}`, 0)]!++;
      counts[ledgerShard(`ses_${i}/r1/claude-2/answer`, i % 3)]!++;
    }
    const share = total / LEDGER_SHARDS;
    for (const count of counts) expect(Math.abs(count - share)).toBeLessThan(share / 4);
  });
});

describe('conditional ledger puts', () => {
  test('one put per entry, on its shard with the usual sort key; a replay finds it and overwrites nothing', async () => {
    const accountId = account();
    const entry = usageEntry({ accountId, requestId: 'req-a', sequence: 1 });
    expect(await putLedgerEntries([entry], usage)).toMatchObject({ written: [entry], present: [], failed: [] });
    const changed = { ...entry, costMicroUsd: 999_999 };
    expect(await putLedgerEntries([changed, changed], usage)).toMatchObject({ written: [], present: [changed] });
    const { Item } = await usage.db.getItem({
      TableName: usage.table,
      Key: toItem({
        pk: ledgerShardPk(accountId, ledgerShard('req-a', 1)),
        sk: ledgerSk(entry.at, 'req-a', 1),
      }),
    });
    expect(fromItem<UsageEntry>(Item!)).toMatchObject({ costMicroUsd: entry.costMicroUsd, type: 'ledger' });
  });

  test(`at most ${LEDGER_PUT_CONCURRENCY} puts are in flight for a batch`, async () => {
    const accountId = account();
    let inFlight = 0;
    let most = 0;
    const counting: Pick<DynamoDb, 'putItem'> = {
      putItem: async (input) => {
        most = Math.max(most, ++inFlight);
        try {
          return await usage.db.putItem(input);
        } finally {
          inFlight--;
        }
      },
    };
    const entries = Array.from({ length: 100 }, (_, i) => usageEntry({ accountId, requestId: `many-${i}` }));
    const outcome = await putLedgerEntries(entries, { db: counting, table: usage.table });
    expect(outcome.written).toHaveLength(100);
    expect(most).toBe(LEDGER_PUT_CONCURRENCY);
  });

  test('puts DynamoDB refuses go to the retry queue, and nothing else does; their redrive completes the ledger', async () => {
    const accountId = account();
    const entries = Array.from({ length: 6 }, (_, i) => usageEntry({ accountId, requestId: `r-${i}` }));
    const queued: UsageEntry[][] = [];
    // Puts start in entry order: the first is refused, the second lands with its answer lost.
    const faults: PutFault[] = ['fail', 'lose-answer'];
    const outcome = await recordLedgerEntries(entries, {
      db: streamingPuts(usage.db, new SimulatedStream(1), faults),
      table: usage.table,
      sendToRetryQueue: async (failed) => void queued.push([...failed]),
    });
    expect(outcome.written).toHaveLength(4);
    expect(queued).toEqual([[entries[0], entries[1]]]);
    expect((await ledgerEntriesOf(usage, accountId)).map((e) => e.requestId).sort()).toEqual([
      'r-1',
      'r-2',
      'r-3',
      'r-4',
      'r-5',
    ]);

    const redriven = await putLedgerEntries(queued[0]!, usage);
    expect(redriven).toMatchObject({ written: [entries[0]], present: [entries[1]], failed: [] });
    expect(await ledgerEntriesOf(usage, accountId)).toHaveLength(6);
  });

  test('when the retry queue refuses them too, the entries come back in the error, for the caller to keep', async () => {
    const accountId = account();
    const entry = usageEntry({ accountId });
    const refusing: Pick<DynamoDb, 'putItem'> = {
      putItem: async () => {
        throw new DynamoDbError('ProvisionedThroughputExceededException', 'throttled', 400);
      },
    };
    const error = await recordLedgerEntries([entry], {
      db: refusing,
      table: usage.table,
      sendToRetryQueue: async () => {
        throw new Error('queue unreachable');
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageNotRecordedError);
    expect((error as UsageNotRecordedError).entries).toEqual([entry]);
  });
});

describe('the batched writer', () => {
  test("entries metered together share a batch; the batch's failures make one retry message; every caller is told it is kept", async () => {
    const accountId = account();
    const queued: UsageEntry[][] = [];
    let puts = 0;
    const refusing: Pick<DynamoDb, 'putItem'> = {
      putItem: async () => {
        puts++;
        throw new DynamoDbError('InternalServerError', 'down', 500);
      },
    };
    const write = batchedLedgerWriter(
      { db: refusing, table: usage.table, sendToRetryQueue: async (failed) => void queued.push([...failed]) },
      0,
    );
    const entries = [0, 1, 2].map((i) => usageEntry({ accountId, requestId: `b-${i}` }));
    await Promise.all(entries.map(write));
    expect(puts).toBe(3);
    expect(queued).toEqual([entries]);
  });
});
