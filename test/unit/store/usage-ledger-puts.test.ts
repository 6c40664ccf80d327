import { createDynamoDb, DynamoDbError, type DynamoDb } from '../../../lambdas/store/dynamodb-client.js';
import { fromItem, toItem } from '../../../lambdas/store/dynamo.js';
import type { UsageEntry } from '../../../lambdas/store/usage-items.js';
import { MAX_STATEMENTS_PER_BATCH } from '../../../lambdas/store/partiql-insert.js';
import {
  LEDGER_CALL_CONCURRENCY,
  LEDGER_STATEMENT_ROUNDS,
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

describe('ledger inserts', () => {
  test('one INSERT per entry, on its shard with the usual sort key; a replay finds it and overwrites nothing', async () => {
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

  test(`entries go ${MAX_STATEMENTS_PER_BATCH} to a call, at most ${LEDGER_CALL_CONCURRENCY} calls in flight`, async () => {
    const accountId = account();
    let inFlight = 0;
    let most = 0;
    const sizes: number[] = [];
    const counting: Pick<DynamoDb, 'batchExecuteStatement'> = {
      batchExecuteStatement: async (input) => {
        most = Math.max(most, ++inFlight);
        sizes.push(input.Statements!.length);
        try {
          return await usage.db.batchExecuteStatement(input);
        } finally {
          inFlight--;
        }
      },
    };
    const entries = Array.from({ length: 210 }, (_, i) => usageEntry({ accountId, requestId: `many-${i}` }));
    const outcome = await putLedgerEntries(entries, { db: counting, table: usage.table });
    expect(outcome.written).toHaveLength(210);
    expect(sizes).toEqual([25, 25, 25, 25, 25, 25, 25, 25, 10]);
    expect(most).toBe(LEDGER_CALL_CONCURRENCY);
    expect(await ledgerEntriesOf(usage, accountId)).toHaveLength(210);
  });

  test('calls DynamoDB refuses go to the retry queue, and nothing else does; their redrive completes the ledger', async () => {
    const accountId = account();
    const entries = Array.from({ length: 30 }, (_, i) => usageEntry({ accountId, requestId: `r-${i}` }));
    const queued: UsageEntry[][] = [];
    // Calls start in entry order: the first (25 entries) is refused, the second lands with its answer lost.
    const faults: PutFault[] = ['fail', 'lose-answer'];
    const outcome = await recordLedgerEntries(entries, {
      db: streamingPuts(usage.db, new SimulatedStream(1), faults),
      table: usage.table,
      sendToRetryQueue: async (failed) => void queued.push([...failed]),
    });
    expect(outcome.written).toHaveLength(0);
    expect(queued).toEqual([entries]);
    expect((await ledgerEntriesOf(usage, accountId)).map((e) => e.requestId).sort()).toEqual(
      entries.slice(25).map((e) => e.requestId),
    );

    const redriven = await putLedgerEntries(queued[0]!, usage);
    expect(redriven).toMatchObject({ written: entries.slice(0, 25), present: entries.slice(25), failed: [] });
    expect(await ledgerEntriesOf(usage, accountId)).toHaveLength(30);
  });

  test('statements refused for capacity are sent again, alone, after a pause; the others are not repeated', async () => {
    const accountId = account();
    const entries = Array.from({ length: 7 }, (_, i) => usageEntry({ accountId, requestId: `t-${i}` }));
    const db = streamingPuts(usage.db, new SimulatedStream(1), ['throttle-odd', 'throttle-odd']);
    const pauses: number[] = [];
    const outcome = await putLedgerEntries(entries, {
      db,
      table: usage.table,
      sleep: async (ms) => void pauses.push(ms),
    });
    // 7 statements; the 3 odd ones again; of those, the middle one again.
    expect(db.calls).toEqual([7, 3, 1]);
    expect(pauses).toHaveLength(2);
    expect(outcome).toMatchObject({ present: [], failed: [] });
    expect(outcome.written.map((e) => e.requestId).sort()).toEqual(entries.map((e) => e.requestId).sort());
    expect(await ledgerEntriesOf(usage, accountId)).toHaveLength(7);
  });

  test(`a statement refused for capacity ${LEDGER_STATEMENT_ROUNDS} rounds running is failed (for the retry queue); a malformed one at once`, async () => {
    const accountId = account();
    const [throttled, malformed, fine] = [0, 1, 2].map((i) => usageEntry({ accountId, requestId: `f-${i}` }));
    let calls = 0;
    const db: Pick<DynamoDb, 'batchExecuteStatement'> = {
      batchExecuteStatement: async (input) => {
        calls++;
        const answer = await usage.db.batchExecuteStatement({ Statements: input.Statements!.slice(-1) });
        const throttle = { Error: { Code: 'ThrottlingError' as const, Message: 'slow down' } };
        const refuse = { Error: { Code: 'ValidationError' as const, Message: 'bad item' } };
        // Only the last statement (the fine entry, in the first round) is really sent.
        return {
          $metadata: {},
          Responses: input.Statements!.map((_, i, all) =>
            i === all.length - 1 && calls === 1 ? answer.Responses![0]! : i === 1 && calls === 1 ? refuse : throttle,
          ),
        };
      },
    };
    const outcome = await putLedgerEntries([throttled!, malformed!, fine!], {
      db,
      table: usage.table,
      sleep: async () => {},
    });
    expect(calls).toBe(LEDGER_STATEMENT_ROUNDS);
    expect(outcome.written).toEqual([fine]);
    expect(outcome.failed.map((f) => [f.entry, (f.error as Error).message])).toEqual([
      [malformed, 'ValidationError: bad item'],
      [throttled, 'ThrottlingError: slow down'],
    ]);
  });

  test('when the retry queue refuses them too, the entries come back in the error, for the caller to keep', async () => {
    const accountId = account();
    const entry = usageEntry({ accountId });
    const refusing: Pick<DynamoDb, 'batchExecuteStatement'> = {
      batchExecuteStatement: async () => {
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
  test('entries metered together share a call; its failures make one retry message; every caller is told it is kept', async () => {
    const accountId = account();
    const queued: UsageEntry[][] = [];
    let calls = 0;
    const refusing: Pick<DynamoDb, 'batchExecuteStatement'> = {
      batchExecuteStatement: async () => {
        calls++;
        throw new DynamoDbError('InternalServerError', 'down', 500);
      },
    };
    const write = batchedLedgerWriter(
      { db: refusing, table: usage.table, sendToRetryQueue: async (failed) => void queued.push([...failed]) },
      0,
    );
    const entries = [0, 1, 2].map((i) => usageEntry({ accountId, requestId: `b-${i}` }));
    await Promise.all(entries.map(write));
    expect(calls).toBe(1);
    expect(queued).toEqual([entries]);
  });
});
