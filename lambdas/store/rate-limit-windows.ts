import type { UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import { dynamo, fromItem, isConditionFailure, tableName, toItem } from './dynamo.js';

/** A block of requests granted from a bucket's shared window. */
export interface Lease {
  /** How many requests were granted (0: the window is used up). */
  readonly granted: number;
  /** The window's count after this lease: the granted requests are the last `granted` of it. */
  readonly count: number;
  /** Epoch milliseconds at which the window ends. */
  readonly resetAtMs: number;
}

export const WINDOW_MS = 60_000;

/**
 * Leases up to `wanted` requests from a fixed window (one minute unless `windowMs` says
 * otherwise) that starts with the bucket's first request. Counted with conditional writes, so every instance shares one exact count and
 * the window never grants more than `limit` in total. Starting the window at the first request
 * (not at wall-clock minutes) means a burst is never split across two windows.
 * `windowEnded`: the caller saw this bucket's last window end, so opening a new one is tried
 * first (one round trip instead of two in the usual case).
 */
export async function lease(
  bucket: string,
  limit: number,
  wanted: number,
  now = Date.now(),
  windowEnded = false,
  windowMs = WINDOW_MS,
): Promise<Lease> {
  let want = Math.max(1, Math.min(wanted, limit));
  for (let round = 0; round < 4; round++) {
    const granted =
      windowEnded && round === 0
        ? ((await openWindow(bucket, want, now, windowMs)) ?? (await addToOpenWindow(bucket, limit, want, now)))
        : ((await addToOpenWindow(bucket, limit, want, now)) ?? (await openWindow(bucket, want, now, windowMs)));
    if (granted) return granted;
    // Full, or too full for `want`, or opened by someone else just now: look, then ask for what is left.
    const current = await readWindow(bucket);
    if (!current || current.resetAtMs <= now) continue;
    const available = limit - current.count;
    if (available <= 0) return { granted: 0, count: current.count, resetAtMs: current.resetAtMs };
    want = Math.min(want, available);
  }
  const current = await readWindow(bucket);
  return { granted: 0, count: current?.count ?? limit, resetAtMs: current?.resetAtMs ?? now + windowMs };
}

const windowKey = (bucket: string) => toItem({ pk: `RATE#${bucket}`, sk: 'WINDOW' });
const NAMES = { '#count': 'count', '#resetAt': 'resetAtMs' };

function addToOpenWindow(bucket: string, limit: number, want: number, now: number): Promise<Lease | undefined> {
  return attempt(want, {
    TableName: tableName('cache'),
    Key: windowKey(bucket),
    UpdateExpression: 'ADD #count :want',
    ConditionExpression: '#resetAt > :now AND #count <= :room',
    ExpressionAttributeNames: NAMES,
    ExpressionAttributeValues: toItem({ ':want': want, ':now': now, ':room': limit - want }),
    ReturnValues: 'ALL_NEW',
  });
}

function openWindow(bucket: string, want: number, now: number, windowMs: number): Promise<Lease | undefined> {
  const resetAtMs = now + windowMs;
  return attempt(want, {
    TableName: tableName('cache'),
    Key: windowKey(bucket),
    UpdateExpression: 'SET #count = :want, #resetAt = :reset, expiresAt = :expires',
    ConditionExpression: 'attribute_not_exists(pk) OR #resetAt <= :now',
    ExpressionAttributeNames: NAMES,
    ExpressionAttributeValues: toItem({
      ':want': want,
      ':now': now,
      ':reset': resetAtMs,
      ':expires': Math.ceil(resetAtMs / 1000) + 60,
    }),
    ReturnValues: 'ALL_NEW',
  });
}

/**
 * Hands one request back to the window that ends at `resetAtMs`, for a caller whose request
 * turned out not to count (a successful sign-in); a window opened since is left alone.
 */
export async function giveBack(bucket: string, resetAtMs: number): Promise<void> {
  try {
    await dynamo().updateItem({
      TableName: tableName('cache'),
      Key: windowKey(bucket),
      UpdateExpression: 'ADD #count :minusOne',
      ConditionExpression: '#resetAt = :reset AND #count > :zero',
      ExpressionAttributeNames: NAMES,
      ExpressionAttributeValues: toItem({ ':minusOne': -1, ':reset': resetAtMs, ':zero': 0 }),
    });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

async function attempt(want: number, input: UpdateItemCommandInput): Promise<Lease | undefined> {
  try {
    const { Attributes } = await dynamo().updateItem(input);
    const { count, resetAtMs } = fromItem<{ count: number; resetAtMs: number }>(Attributes!);
    return { granted: want, count, resetAtMs };
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

async function readWindow(bucket: string): Promise<{ count: number; resetAtMs: number } | undefined> {
  const { Item } = await dynamo().getItem({
    TableName: tableName('cache'),
    Key: windowKey(bucket),
    ConsistentRead: true,
  });
  return Item ? fromItem<{ count: number; resetAtMs: number }>(Item) : undefined;
}

/*
 * Sharded windows, for keys whose limit is above SINGLE_WINDOW_MAX. One item takes at most
 * 1,000 writes a second, and a key at 10,000 a minute drained at full speed from hundreds of
 * instances would send it several times that; so the window is split into shard items whose
 * shares sum to the limit, each a partition key of its own. The window is the same for every
 * shard (fixed minutes, offset per bucket), which every instance computes without asking, so
 * each window's shard items are new items (the window's end is in the sort key): a lease is one
 * conditional ADD, with no opening race.
 */

/** Limits up to this keep one window item that starts at the first request (`lease`). */
export const SINGLE_WINDOW_MAX = 1_000;
/** Largest share of one shard item: no shard grants more than this many requests per window. */
export const SHARD_SHARE_MAX = 500;

/** How many items count `limit`'s window: 1 (the single item) up to `SINGLE_WINDOW_MAX`. */
export const shardCount = (limit: number): number =>
  limit <= SINGLE_WINDOW_MAX ? 1 : Math.ceil(limit / SHARD_SHARE_MAX);

/** Each shard's share of `limit`: as equal as integers allow, summing to `limit`. */
export function shardShares(limit: number): number[] {
  const shards = shardCount(limit);
  const base = Math.floor(limit / shards);
  return Array.from({ length: shards }, (_, shard) => base + (shard < limit % shards ? 1 : 0));
}

/**
 * End of the sharded window that holds `now`: windows of `windowMs` on a grid offset per
 * bucket, so busy keys do not all roll over at the same instant.
 */
export function alignedWindowEnd(bucket: string, now: number, windowMs = WINDOW_MS): number {
  const phase = fnv1a(bucket) % windowMs;
  return now - ((((now - phase) % windowMs) + windowMs) % windowMs) + windowMs;
}

/** Reads and writes of the shard items; an interface so counts can be observed in tests. */
export interface ShardedWindowStore {
  /**
   * Adds `wanted` to the shard's count for the window ending at `resetAtMs` if that leaves it
   * within `share`; the count after the addition, or undefined when there was not that much room.
   */
  lease(bucket: string, shard: number, share: number, wanted: number, resetAtMs: number): Promise<number | undefined>;
  /** Every shard's count in that window (consistent reads); undefined where DynamoDB left a key unread. */
  counts(bucket: string, shards: number, resetAtMs: number): Promise<(number | undefined)[]>;
}

const shardKey = (bucket: string, shard: number, resetAtMs: number) =>
  toItem({ pk: `RATE#${bucket}#SHARD#${shard}`, sk: `W#${resetAtMs}` });
const shardOf = (pk: string | undefined) => Number(pk?.slice(pk.lastIndexOf('#') + 1));

/** BatchGetItem calls per read of the counts, for keys DynamoDB leaves unprocessed (it does when throttled). */
const COUNT_READ_ROUNDS = 2;

export const shardedWindows: ShardedWindowStore = {
  async lease(bucket, shard, share, wanted, resetAtMs) {
    try {
      const { Attributes } = await dynamo().updateItem({
        TableName: tableName('cache'),
        Key: shardKey(bucket, shard, resetAtMs),
        UpdateExpression: 'ADD #count :want SET expiresAt = :expires',
        ConditionExpression: 'attribute_not_exists(#count) OR #count <= :room',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: toItem({
          ':want': wanted,
          ':room': share - wanted,
          ':expires': Math.ceil(resetAtMs / 1000) + 60,
        }),
        ReturnValues: 'UPDATED_NEW',
      });
      return fromItem<{ count: number }>(Attributes!).count;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  },

  async counts(bucket, shards, resetAtMs) {
    const table = tableName('cache');
    // A key answered without an item has none yet in this window: nothing was leased from it.
    const counts = Array<number | undefined>(shards).fill(0);
    let keys = Array.from({ length: shards }, (_, shard) => shardKey(bucket, shard, resetAtMs));
    for (let round = 0; keys.length > 0; round++) {
      if (round === COUNT_READ_ROUNDS) {
        for (const key of keys) counts[shardOf(key['pk']?.S)] = undefined;
        break;
      }
      const { Responses, UnprocessedKeys } = await dynamo().batchGetItem({
        RequestItems: {
          [table]: {
            Keys: keys,
            ConsistentRead: true,
            ProjectionExpression: 'pk, #count',
            ExpressionAttributeNames: { '#count': 'count' },
          },
        },
      });
      for (const item of Responses?.[table] ?? []) {
        const { pk, count } = fromItem<{ pk: string; count: number }>(item);
        counts[shardOf(pk)] = count;
      }
      keys = UnprocessedKeys?.[table]?.Keys ?? [];
    }
    return counts;
  },
};

/** FNV-1a, 32 bits: a stable, cheap spread of bucket names over the window grid. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
