// Types of local/dynamodb-streams.mjs, for the TypeScript that drives it in-process (tests).
import type { Server } from 'node:http';

export declare const STREAMS_TARGET_PREFIX: string;
export declare const SHARD_COUNT: number;
export declare const RETENTION_MS: number;
export declare const MAX_RECORDS_PER_CALL: number;
export declare const ITERATOR_TTL_MS: number;

export declare class StreamsError extends Error {
  readonly type: string;
  readonly status: number;
}

type Item = Record<string, unknown>;
type KeySchema = { AttributeName: string; KeyType: 'HASH' | 'RANGE' }[];

export interface LocalStreams {
  captures(tableName: string): boolean;
  enable(tableName: string, tableArn: string, keySchema: KeySchema, viewType: string): { readonly arn: string };
  disable(tableName: string): boolean;
  changed(tableName: string, before: Item | undefined, after: Item | undefined): void;
  transactionWriteStarted(tableName: string): void;
  transactionWriteEnded(tableName: string): void;
  settle(tables: readonly string[], committed: boolean): void;
  listStreams(input: Record<string, unknown>): Record<string, unknown>;
  describeStream(input: Record<string, unknown>): Record<string, unknown>;
  getShardIterator(input: Record<string, unknown>): { ShardIterator: string };
  getRecordsText(input: Record<string, unknown>): string;
  trimExpired(): void;
  close(): void;
}

export declare function openStreams(options: {
  path: string;
  now?: () => number;
  region?: string;
  shardCount?: number;
}): LocalStreams;

export declare function captureItemWrites(streams: LocalStreams): void;
export declare function addStreams(server: Server, streams: LocalStreams): void;
export declare function createStreamsApiServer(streams: LocalStreams): Server;
