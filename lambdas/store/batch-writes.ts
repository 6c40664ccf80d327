import type { WriteRequest } from '@aws-sdk/client-dynamodb';
import { Coalescer } from './coalescer.js';
import { dynamo, type Item } from './dynamo.js';
import { writeBehindMs } from './write-behind.js';

/** BatchWriteItem's own limit. */
const MAX_BATCH = 25;
const MAX_ROUNDS = 6;

interface Put {
  readonly table: string;
  readonly item: Item;
}

/**
 * Unconditional puts from concurrent requests, sent together with BatchWriteItem (across
 * tables). Only for writes that are idempotent by key: a retried batch rewrites the same
 * items. Unprocessed items are retried with backoff until written.
 */
const puts = new Coalescer<Put>(writeBatch, MAX_BATCH, writeBehindMs());

export function batchedPut(table: string, item: Item): Promise<void> {
  return puts.add({ table, item });
}

async function writeBatch(batch: Put[]): Promise<void> {
  let requests = group(dedupe(batch));
  for (let round = 0; Object.keys(requests).length > 0; round++) {
    if (round >= MAX_ROUNDS) throw new Error('DynamoDB left items unprocessed after retries');
    if (round > 0) await new Promise((done) => setTimeout(done, Math.random() * 20 * 2 ** round));
    const { UnprocessedItems } = await dynamo().batchWriteItem({ RequestItems: requests });
    requests = (UnprocessedItems ?? {}) as Record<string, WriteRequest[]>;
  }
}

/** A batch may not name one key twice; the later put wins, as it would have sequentially. */
function dedupe(batch: Put[]): Put[] {
  const byKey = new Map<string, Put>();
  for (const put of batch) byKey.set(`${put.table}\n${put.item['pk']?.S}\n${put.item['sk']?.S}`, put);
  return [...byKey.values()];
}

function group(batch: Put[]): Record<string, WriteRequest[]> {
  const requests: Record<string, WriteRequest[]> = {};
  for (const put of batch) (requests[put.table] ??= []).push({ PutRequest: { Item: put.item } });
  return requests;
}
