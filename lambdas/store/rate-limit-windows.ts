import { GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { dynamo, fromItem, isConditionFailure, tableName, toItem } from './dynamo.js';

export interface WindowState {
  readonly allowed: boolean;
  /** Requests counted in the current window, this one included when allowed. */
  readonly count: number;
  /** Epoch milliseconds at which the window ends. */
  readonly resetAtMs: number;
}

export const WINDOW_MS = 60_000;

/**
 * A fixed one-minute window that starts with the bucket's first request, counted with
 * conditional writes so that concurrent requests on every instance share one exact count.
 * Starting the window at the first request (rather than at wall-clock minutes) means a burst
 * is never split across two windows.
 */
export async function consume(bucket: string, limit: number, now = Date.now()): Promise<WindowState> {
  const counted = (await countInOpenWindow(bucket, limit, now)) ?? (await openWindow(bucket, now));
  if (counted) return counted;
  // Someone else opened the window between our two writes: count in theirs, or refuse.
  return (await countInOpenWindow(bucket, limit, now)) ?? refusal(bucket, now);
}

const windowKey = (bucket: string) => toItem({ pk: `RATE#${bucket}`, sk: 'WINDOW' });

async function countInOpenWindow(bucket: string, limit: number, now: number): Promise<WindowState | undefined> {
  return attempt(
    new UpdateItemCommand({
      TableName: tableName('cache'),
      Key: windowKey(bucket),
      UpdateExpression: 'ADD #count :one',
      ConditionExpression: '#resetAt > :now AND #count < :limit',
      ExpressionAttributeNames: { '#count': 'count', '#resetAt': 'resetAtMs' },
      ExpressionAttributeValues: toItem({ ':one': 1, ':now': now, ':limit': limit }),
      ReturnValues: 'ALL_NEW',
    }),
  );
}

async function openWindow(bucket: string, now: number): Promise<WindowState | undefined> {
  const resetAtMs = now + WINDOW_MS;
  return attempt(
    new UpdateItemCommand({
      TableName: tableName('cache'),
      Key: windowKey(bucket),
      UpdateExpression: 'SET #count = :one, #resetAt = :reset, expiresAt = :expires',
      ConditionExpression: 'attribute_not_exists(pk) OR #resetAt <= :now',
      ExpressionAttributeNames: { '#count': 'count', '#resetAt': 'resetAtMs' },
      ExpressionAttributeValues: toItem({
        ':one': 1,
        ':now': now,
        ':reset': resetAtMs,
        ':expires': Math.ceil(resetAtMs / 1000) + 60,
      }),
      ReturnValues: 'ALL_NEW',
    }),
  );
}

async function attempt(command: UpdateItemCommand): Promise<WindowState | undefined> {
  try {
    const { Attributes } = await dynamo().send(command);
    const { count, resetAtMs } = fromItem<{ count: number; resetAtMs: number }>(Attributes!);
    return { allowed: true, count, resetAtMs };
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

async function refusal(bucket: string, now: number): Promise<WindowState> {
  const { Item } = await dynamo().send(
    new GetItemCommand({ TableName: tableName('cache'), Key: windowKey(bucket), ConsistentRead: true }),
  );
  const state = Item ? fromItem<{ count: number; resetAtMs: number }>(Item) : { count: 0, resetAtMs: now + WINDOW_MS };
  return { allowed: false, count: state.count, resetAtMs: state.resetAtMs };
}
