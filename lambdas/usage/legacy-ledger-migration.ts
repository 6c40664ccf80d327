import { fromItem, toItem, type Item } from '../store/dynamo.js';
import type { DynamoDb } from '../store/dynamodb-client.js';
import { putLedgerEntries } from '../store/usage-ledger-puts.js';
import type { UsageEntry } from '../store/usage-items.js';
import { readUsageEntry } from './usage-entry-reader.js';

/**
 * Versions before the sharded ledger kept each account's entries in one partition,
 * `ACCOUNT#<accountId>`, next to day totals written in the same transaction. Reports now read
 * only the totals the aggregator derives from the ledger shards, so such entries are copied to
 * their shard: the same item under its shard's partition key, inserted only if it is new
 * (a copy run twice, or an entry the new writer already wrote, writes nothing). The aggregator
 * then counts them like any new entry. The old items stay (the ledger is never deleted from);
 * finance's queries keep one copy per account and sort key.
 */

export interface MigrationDeps {
  readonly db: Pick<DynamoDb, 'request' | 'batchExecuteStatement'>;
  /** The usage table's physical name. */
  readonly table: string;
  /** Progress lines for the operator. */
  readonly print: (line: string) => void;
  /** Count what would be copied, write nothing. */
  readonly dryRun?: boolean;
}

export interface MigrationOutcome {
  /** Items of the unsharded ledger found. */
  readonly found: number;
  /** Copies this run created. */
  readonly copied: number;
  /** Entries whose copy was already there. */
  readonly present: number;
  /** Items that are not a readable entry (named in the output, left alone). */
  readonly unreadable: number;
}

/** Entries copied per round (usage-ledger-puts.ts writes them 25 to a call, 4 calls at a time). */
const COPY_BATCH = 100;

interface ScanPage {
  readonly Items?: Item[];
  readonly LastEvaluatedKey?: Item;
}

/**
 * Scans the table for ledger items of the unsharded layout (a `pk` without a shard suffix) and
 * copies each to its shard. Throws when DynamoDB refuses a copy after the client's retries: run
 * it again, it goes on where it stands.
 */
export async function migrateLegacyLedger(deps: MigrationDeps): Promise<MigrationOutcome> {
  const outcome = { found: 0, copied: 0, present: 0, unreadable: 0 };
  let pending: UsageEntry[] = [];
  const flush = async () => {
    if (pending.length === 0 || deps.dryRun) return void (pending = []);
    const put = await putLedgerEntries(pending, { db: deps.db, table: deps.table });
    pending = [];
    if (put.failed.length > 0) throw put.failed[0]!.error;
    outcome.copied += put.written.length;
    outcome.present += put.present.length;
  };
  let startKey: Item | undefined;
  do {
    const page = await deps.db.request<ScanPage>('Scan', {
      TableName: deps.table,
      // Shard partitions are `ACCOUNT#<id>#L<n>`; account ids have no `#`.
      FilterExpression: '#type = :ledger AND begins_with(pk, :account) AND NOT contains(pk, :shard)',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: toItem({ ':ledger': 'ledger', ':account': 'ACCOUNT#', ':shard': '#L' }),
      ExclusiveStartKey: startKey,
    });
    for (const item of page.Items ?? []) {
      outcome.found++;
      try {
        pending.push(readUsageEntry(fromItem<Record<string, unknown>>(item)));
      } catch (error) {
        outcome.unreadable++;
        deps.print(`left alone (not a readable entry): ${item['pk']?.S} ${item['sk']?.S}: ${(error as Error).message}`);
      }
      if (pending.length >= COPY_BATCH) await flush();
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  await flush();
  deps.print(
    deps.dryRun
      ? `${outcome.found} entries of the unsharded ledger found (dry run: nothing copied)`
      : `${outcome.found} entries of the unsharded ledger found: ${outcome.copied} copied to their shards, ${outcome.present} already there, ${outcome.unreadable} unreadable`,
  );
  return outcome;
}
