import { ENV } from '../config/environment.js';

/**
 * The DynamoDB tables, split by lifecycle. Data only: the CDK stack declares these tables
 * from it and the local runtime creates the same tables in the embedded DynamoDB.
 * Every table uses string keys `pk` and `sk`; expiring items carry `expiresAt`
 * (epoch seconds), which is the TTL attribute. Code never trusts TTL deletion: it checks
 * `expiresAt` on read.
 */

export type TableName = 'identity' | 'usage' | 'cache' | 'jobs';

export interface IndexSchema {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: string;
}

export interface TableSchema {
  readonly name: TableName;
  /** Environment variable that carries the physical table name to the functions. */
  readonly envVar: string;
  /** Long-lived business records get deletion protection; regenerable ones do not. */
  readonly deletionProtection: boolean;
  readonly indexes: readonly IndexSchema[];
  /** The table's DynamoDB stream, if it has one: what each record shows of the item. */
  readonly stream?: StreamViewType;
}

export type StreamViewType = 'KEYS_ONLY' | 'NEW_IMAGE' | 'OLD_IMAGE' | 'NEW_AND_OLD_IMAGES';

export const PARTITION_KEY = 'pk';
export const SORT_KEY = 'sk';
export const TTL_ATTRIBUTE = 'expiresAt';

/** Owner index: every record an account owns, newest last (keys, provider keys). */
export const OWNER_INDEX: IndexSchema = { name: 'byOwner', partitionKey: 'ownerPk', sortKey: 'ownerSk' };

export const tableSchemas: readonly TableSchema[] = [
  { name: 'identity', envVar: ENV.identityTable, deletionProtection: true, indexes: [OWNER_INDEX] },
  // New ledger entries stream to the usage aggregator (lambdas/usage/usage-aggregator.ts), which
  // needs each whole and nothing of what it replaced.
  { name: 'usage', envVar: ENV.usageTable, deletionProtection: true, indexes: [], stream: 'NEW_IMAGE' },
  { name: 'cache', envVar: ENV.cacheTable, deletionProtection: false, indexes: [] },
  { name: 'jobs', envVar: ENV.jobsTable, deletionProtection: false, indexes: [OWNER_INDEX] },
];
