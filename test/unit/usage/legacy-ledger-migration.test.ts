import { createDynamoDb, type DynamoDb } from '../../../lambdas/store/dynamodb-client.js';
import { accountPk, ledgerItem, type UsageEntry } from '../../../lambdas/store/usage-items.js';
import { ledgerShardPk, ledgerShard } from '../../../lambdas/store/usage-ledger-shards.js';
import { migrateLegacyLedger } from '../../../lambdas/usage/legacy-ledger-migration.js';
import { parseMigrateArguments, runUsageMigrate } from '../../../bin/usage-migrate.js';
import { toItem } from '../../../lambdas/store/dynamo.js';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';
import { usageEntry } from '../../support/usage-pipeline-harness.js';

// Entries an earlier version kept in the unsharded ledger (`ACCOUNT#<id>`), next to the day
// totals it wrote with them, are copied to their shards once, however often the copy runs.

const local = useLocalDynamoDb('migration');
let db: DynamoDb;
let table: string;

beforeAll(() => {
  db = createDynamoDb({
    endpoint: local().endpoint,
    region: 'us-east-1',
    credentials: () => ({ accessKeyId: 'test', secretAccessKey: 'test' }),
  });
  table = local().tableNames.usage;
});

const legacy = (accountId: string, count: number): UsageEntry[] =>
  Array.from({ length: count }, (_, i) =>
    usageEntry({ accountId, requestId: `old-${accountId}-${i}`, at: `2026-05-0${1 + (i % 3)}T10:00:00.000Z` }),
  );

async function seed(entries: readonly UsageEntry[]): Promise<void> {
  for (const entry of entries) {
    await db.putItem({ TableName: table, Item: ledgerItem(entry, accountPk(entry.accountId)) });
  }
  // The old layout's day total, which is not an entry and is not copied.
  await db.putItem({
    TableName: table,
    Item: toItem({
      pk: accountPk(entries[0]!.accountId),
      sk: 'DAY#2026-05-01#gpt-5#chat-completions',
      type: 'day',
      requests: 9,
    }),
  });
}

async function shardCopies(entries: readonly UsageEntry[]): Promise<number> {
  let found = 0;
  for (const entry of entries) {
    const { Item } = await db.getItem({
      TableName: table,
      Key: toItem({
        pk: ledgerShardPk(entry.accountId, ledgerShard(entry.requestId, entry.sequence)),
        sk: ledgerItem(entry, '')['sk']!.S,
      }),
    });
    if (Item) found++;
  }
  return found;
}

test('copies every unsharded entry to its shard once; a dry run and a second run write nothing', async () => {
  const entries = [...legacy('mig-a', 150), ...legacy('mig-b', 3)];
  await seed(entries);
  // An entry the new writer already wrote to its shard: its copy is already there.
  const [first] = entries;
  await db.putItem({
    TableName: table,
    Item: ledgerItem(first!, ledgerShardPk(first!.accountId, ledgerShard(first!.requestId, 0))),
  });
  // And an item that is not a readable entry is named, not copied.
  await db.putItem({ TableName: table, Item: toItem({ pk: accountPk('mig-c'), sk: 'LEDGER#broken', type: 'ledger' }) });

  const lines: string[] = [];
  const print = (line: string) => lines.push(line);
  expect(await migrateLegacyLedger({ db, table, print, dryRun: true })).toMatchObject({ found: 154, copied: 0 });
  expect(await shardCopies(entries)).toBe(1);

  expect(await migrateLegacyLedger({ db, table, print })).toEqual({
    found: 154,
    copied: 152,
    present: 1,
    unreadable: 1,
  });
  expect(await shardCopies(entries)).toBe(entries.length);
  expect(lines.some((line) => line.includes('LEDGER#broken'))).toBe(true);

  // The copies are not found again as unsharded entries, and nothing is copied twice.
  expect(await migrateLegacyLedger({ db, table, print })).toEqual({
    found: 154,
    copied: 0,
    present: 153,
    unreadable: 1,
  });
});

test('the command line: its flags, and a run against the table named', async () => {
  expect(parseMigrateArguments([])).toEqual({ stack: 'AiGateway', dryRun: false });
  expect(parseMigrateArguments(['--table', 't', '--dry-run'])).toEqual({
    stack: 'AiGateway',
    table: 't',
    dryRun: true,
  });
  expect(() => parseMigrateArguments(['--table'])).toThrow('--table: needs a value');
  expect(() => parseMigrateArguments(['--force'])).toThrow('--force: unknown');
  const printed: string[] = [];
  const outcome = await runUsageMigrate(['--table', table, '--dry-run'], (line) => printed.push(line));
  expect(printed.at(-1)).toMatch(/dry run: nothing copied/);
  expect(outcome.found).toBeGreaterThan(0);
  expect(outcome.copied).toBe(0);
});
