import type { KeysAndAttributes } from '@aws-sdk/client-dynamodb';
import { Coalescer } from './coalescer.js';
import { dynamo, type Item } from './dynamo.js';

/** BatchGetItem's own limit. */
const MAX_BATCH = 100;
const MAX_ROUNDS = 6;

interface Get {
  readonly table: string;
  readonly key: Item;
  found?: Item;
}

/**
 * Reads by key from concurrent requests, sent together with BatchGetItem: the reads that
 * arrive in one turn of the event loop share a round trip, so a lone request waits for
 * nothing (and goes as a plain GetItem). Eventually consistent, like GetItem's default.
 */
const gets = new Coalescer<Get>(readBatch, MAX_BATCH, 0);

export async function batchedGet(table: string, key: Item): Promise<Item | undefined> {
  const get: Get = { table, key };
  await gets.add(get);
  return get.found;
}

const keyOf = (table: string, key: Item) => `${table}\n${key['pk']?.S}\n${key['sk']?.S}`;

async function readBatch(batch: Get[]): Promise<void> {
  const byKey = new Map<string, Get[]>();
  for (const get of batch) {
    const k = keyOf(get.table, get.key);
    byKey.set(k, [...(byKey.get(k) ?? []), get]);
  }
  if (byKey.size === 1) return readOne(batch);
  let requests: Record<string, KeysAndAttributes> = {};
  for (const [, [first]] of byKey) (requests[first!.table] ??= { Keys: [] }).Keys!.push(first!.key);
  for (let round = 0; Object.keys(requests).length > 0; round++) {
    if (round >= MAX_ROUNDS) throw new Error('DynamoDB left keys unprocessed after retries');
    if (round > 0) await new Promise((done) => setTimeout(done, Math.random() * 20 * 2 ** round));
    const { Responses, UnprocessedKeys } = await dynamo().batchGetItem({ RequestItems: requests });
    for (const [table, items] of Object.entries(Responses ?? {})) {
      for (const item of items) for (const get of byKey.get(keyOf(table, item)) ?? []) get.found = item;
    }
    requests = UnprocessedKeys ?? {};
  }
}

/** A lone key (the usual case at low load) goes as GetItem: a smaller call, and quicker to answer. */
async function readOne(batch: Get[]): Promise<void> {
  const { table, key } = batch[0]!;
  const { Item } = await dynamo().getItem({ TableName: table, Key: key });
  for (const get of batch) get.found = Item;
}
