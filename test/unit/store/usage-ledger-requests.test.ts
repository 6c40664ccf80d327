import { createDynamoDb, type DynamoDb } from '../../../lambdas/store/dynamodb-client.js';
import { putLedgerEntries } from '../../../lambdas/store/usage-ledger-puts.js';
import { LedgerRequestsNewestFirst } from '../../../lambdas/store/usage-ledger-requests.js';
import { LEDGER_SHARDS } from '../../../lambdas/store/usage-ledger-shards.js';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';
import { usageEntry } from '../../support/usage-pipeline-harness.js';

/** The merge of an account's ledger shards into whole requests, newest first (the request log's reader). */
const local = useLocalDynamoDb('ledger-requests');
let db: DynamoDb;
let queries = 0;
const reader = () => ({
  table: local().tableNames.usage,
  db: {
    query: (input: Parameters<DynamoDb['query']>[0]) => {
      queries++;
      return db.query(input);
    },
  },
});
beforeAll(() => {
  db = createDynamoDb({
    endpoint: local().endpoint,
    region: 'us-east-1',
    credentials: () => ({ accessKeyId: 'test', secretAccessKey: 'test' }),
  });
});

let run = 0;
const newAccount = () => `merge-${++run}`;

describe('the merge', () => {
  test('a request larger than the budget is still completed, so a page always moves on', async () => {
    const accountId = newAccount();
    const at = '2026-07-01T13:00:00.000Z';
    const seeded = await putLedgerEntries(
      [
        ...Array.from({ length: 3 * LEDGER_SHARDS }, (_, sequence) =>
          usageEntry({ accountId, requestId: 'arena-long', sequence, at }),
        ),
        usageEntry({ accountId, requestId: 'older', at: '2026-07-01T12:00:00.000Z' }),
      ],
      { db, table: local().tableNames.usage },
    );
    expect(seeded.failed).toEqual([]);
    queries = 0;
    const merged = new LedgerRequestsNewestFirst(
      reader(),
      accountId,
      { fromSk: 'LEDGER#', toSk: 'LEDGER#\uffff' },
      { firstQueryEntries: 1, queries: 1 },
    );
    const first = await merged.next();
    expect(first).not.toBe('end');
    expect(first).not.toBe('budget');
    const request = first as Exclude<typeof first, string>;
    expect(request.prefix).toBe(`LEDGER#${at}#arena-long#`);
    expect(request.items.map((item) => Number(item['sequence']!.N))).toEqual(
      Array.from({ length: 3 * LEDGER_SHARDS }, (_, i) => i),
    );
    expect(await merged.next()).toBe('budget');
  });

  test('requests of 1 to 5 entries, several at one instant, come whole and in key order however small the reads', async () => {
    const accountId = newAccount();
    const entries = Array.from({ length: 120 }, (_, i) => {
      const at = new Date(Date.UTC(2026, 6, 1) + Math.floor(i / 3) * 1000).toISOString();
      return Array.from({ length: 1 + ((i * 7) % 5) }, (_, sequence) =>
        usageEntry({ accountId, requestId: `q${(i * 37) % 120}`, sequence, at }),
      );
    });
    const seeded = await putLedgerEntries(entries.flat(), { db, table: local().tableNames.usage });
    expect(seeded.failed).toEqual([]);
    const expected = entries
      .map((request) => ({ prefix: `LEDGER#${request[0]!.at}#${request[0]!.requestId}#`, size: request.length }))
      .sort((a, b) => (a.prefix < b.prefix ? 1 : -1));
    for (const firstQueryEntries of [1, 3, 100]) {
      const merged = new LedgerRequestsNewestFirst(
        reader(),
        accountId,
        { fromSk: 'LEDGER#', toSk: 'LEDGER#\uffff' },
        { firstQueryEntries, queries: 100_000 },
      );
      const read: { prefix: string; size: number }[] = [];
      for (let next = await merged.next(); typeof next !== 'string'; next = await merged.next()) {
        expect(next.items.map((item) => Number(item['sequence']!.N))).toEqual([...next.items.keys()]);
        read.push({ prefix: next.prefix, size: next.items.length });
      }
      expect(read).toEqual(expected);
      expect(merged.exhausted).toBe(true);
    }
  });

  test('an empty range reads nothing', async () => {
    queries = 0;
    const merged = new LedgerRequestsNewestFirst(
      reader(),
      newAccount(),
      { fromSk: 'LEDGER#2026-07-02', toSk: 'LEDGER#2026-07-01' },
      { firstQueryEntries: 4, queries: 64 },
    );
    expect(await merged.next()).toBe('end');
    expect(queries).toBe(0);
  });
});
