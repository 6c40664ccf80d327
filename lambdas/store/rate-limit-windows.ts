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
