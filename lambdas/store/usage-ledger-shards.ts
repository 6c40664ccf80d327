import type { Item } from './dynamo.js';
import { accountPk, ledgerItem, type UsageEntry } from './usage-items.js';

/**
 * Partitions one account's ledger is spread over. DynamoDB gives a partition key at most 1,000
 * WCU/s; at 10,000 entries a second from one tenant, 32 shards take about 313 WCU/s each (an
 * entry of up to 1 KB is 1 WCU), so the busiest tenant stays below a third of the limit.
 */
export const LEDGER_SHARDS = 32;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * The shard of one entry: a hash of its request id and sequence (FNV-1a, 32 bits), so a retry
 * or a replay of the entry names the same item, and one request's entries spread like any others.
 */
export function ledgerShard(requestId: string, sequence: number): number {
  const text = `${requestId}#${sequence}`;
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return (hash >>> 0) % LEDGER_SHARDS;
}

export const ledgerShardPk = (accountId: string, shard: number) => `${accountPk(accountId)}#L${shard}`;

/** Every ledger partition of an account, shard 0 first. */
export const ledgerShardPks = (accountId: string): string[] =>
  Array.from({ length: LEDGER_SHARDS }, (_, shard) => ledgerShardPk(accountId, shard));

/** The entry's item in the sharded ledger: the same attributes and sort key as the unsharded one. */
export const shardedLedgerItem = (entry: UsageEntry): Item =>
  ledgerItem(entry, ledgerShardPk(entry.accountId, ledgerShard(entry.requestId, entry.sequence)));

const SHARD_SUFFIX = /#L(\d+)$/;

/** Whether a partition key is one of the sharded ledger's (`ACCOUNT#<id>#L<n>`, n < LEDGER_SHARDS). */
export function isLedgerShardPk(pk: string): boolean {
  const match = SHARD_SUFFIX.exec(pk);
  return match !== null && pk.startsWith('ACCOUNT#') && Number(match[1]) < LEDGER_SHARDS;
}
