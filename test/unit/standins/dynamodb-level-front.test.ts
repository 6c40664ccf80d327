import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../local/dynamodb.js';
import { LevelFront } from '../../../local/dynamodb-level-front.mjs';

/**
 * The embedded DynamoDB's read cache (local/dynamodb-level-front.mjs) must never change an
 * answer: a seeded mix of writes, conditional writes, updates, deletes and reads is checked
 * against a model kept here, with a cache far smaller than the keys (so it evicts), with
 * concurrent calls, and again after a restart, whose reads come from LevelDB alone.
 */
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const TABLE = 'gateway-cache';
const PARTITIONS = 4;
const SORTS = 10;

let dataDir: string;
let db: LocalDynamoDb | undefined;
let client: DynamoDBClient | undefined;

async function start(): Promise<DynamoDBClient> {
  db = await startLocalDynamoDb({ dataDir, tablePrefix: 'gateway', readCacheValues: 8 });
  client = new DynamoDBClient({ endpoint: db.endpoint, region: 'us-east-1', credentials });
  return client;
}

async function stop(): Promise<void> {
  client?.destroy();
  client = undefined;
  await db?.stop();
  db = undefined;
}

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'level-front-'));
});

afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Mulberry32: the same sequence on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Model = Map<string, { value: string; count: number }>;
const id = (pk: string, sk: string) => `${pk}|${sk}`;
const key = (pk: string, sk: string) => ({ pk: { S: pk }, sk: { S: sk } });

async function read(ddb: DynamoDBClient, pk: string, sk: string) {
  const { Item } = await ddb.send(new GetItemCommand({ TableName: TABLE, Key: key(pk, sk), ConsistentRead: true }));
  return Item ? { value: Item['value']!.S!, count: Number(Item['count']!.N) } : undefined;
}

/** One step of the mix, applied to the table and to the model alike. */
async function step(ddb: DynamoDBClient, model: Model, random: () => number, n: number): Promise<void> {
  const pk = `P${Math.floor(random() * PARTITIONS)}`;
  const sk = `S${Math.floor(random() * SORTS)}`;
  const k = id(pk, sk);
  const roll = random();
  if (roll < 0.3) {
    const value = `v${n}`;
    await ddb.send(
      new PutItemCommand({ TableName: TABLE, Item: { ...key(pk, sk), value: { S: value }, count: { N: '0' } } }),
    );
    model.set(k, { value, count: 0 });
  } else if (roll < 0.45) {
    const value = `new${n}`;
    const put = ddb.send(
      new PutItemCommand({
        TableName: TABLE,
        Item: { ...key(pk, sk), value: { S: value }, count: { N: '0' } },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    if (model.has(k)) await expect(put).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    else {
      await put;
      model.set(k, { value, count: 0 });
    }
  } else if (roll < 0.65) {
    await ddb.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key: key(pk, sk),
        UpdateExpression: 'ADD #count :one SET #value = if_not_exists(#value, :fresh)',
        ExpressionAttributeNames: { '#count': 'count', '#value': 'value' },
        ExpressionAttributeValues: { ':one': { N: '1' }, ':fresh': { S: `upd${n}` } },
      }),
    );
    const was = model.get(k);
    model.set(k, { value: was?.value ?? `upd${n}`, count: (was?.count ?? 0) + 1 });
  } else if (roll < 0.8) {
    await ddb.send(new DeleteItemCommand({ TableName: TABLE, Key: key(pk, sk) }));
    model.delete(k);
  } else {
    expect(await read(ddb, pk, sk)).toEqual(model.get(k));
  }
}

async function expectTableMatches(ddb: DynamoDBClient, model: Model): Promise<void> {
  for (let p = 0; p < PARTITIONS; p++) {
    for (let s = 0; s < SORTS; s++) expect(await read(ddb, `P${p}`, `S${s}`)).toEqual(model.get(id(`P${p}`, `S${s}`)));
    const { Items = [] } = await ddb.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: `P${p}` } },
      }),
    );
    const queried = Items.map((item) => `${item['sk']!.S}=${item['value']!.S}/${item['count']!.N}`).sort();
    const expected = [...model]
      .filter(([k]) => k.startsWith(`P${p}|`))
      .map(([k, item]) => `${k.split('|')[1]}=${item.value}/${item.count}`)
      .sort();
    expect(queried).toEqual(expected);
  }
}

const model: Model = new Map();

test('a seeded mix of 600 calls answers as the model says, with a cache of 8 values for 40 keys', async () => {
  const ddb = await start();
  const random = seeded(19);
  for (let n = 0; n < 600; n++) await step(ddb, model, random, n);
  await expectTableMatches(ddb, model);
});

test('concurrent calls on distinct keys, then reads: every answer as the model says', async () => {
  const ddb = client!;
  const random = seeded(23);
  for (let round = 0; round < 20; round++) {
    // One call per partition at once: distinct keys, so the model's order does not matter.
    const picks = Array.from({ length: PARTITIONS }, (_, p) => ({
      p,
      roll: random(),
      s: Math.floor(random() * SORTS),
    }));
    await Promise.all(
      picks.map(async ({ p, roll, s }) => {
        const pk = `P${p}`;
        const sk = `S${s}`;
        if (roll < 0.5) {
          const value = `c${round}`;
          await ddb.send(
            new PutItemCommand({ TableName: TABLE, Item: { ...key(pk, sk), value: { S: value }, count: { N: '7' } } }),
          );
          model.set(id(pk, sk), { value, count: 7 });
        } else {
          await ddb.send(new DeleteItemCommand({ TableName: TABLE, Key: key(pk, sk) }));
          model.delete(id(pk, sk));
        }
      }),
    );
  }
  await ddb.send(new DeleteItemCommand({ TableName: TABLE, Key: key('P0', 'S0') }));
  model.delete(id('P0', 'S0'));
  await expectTableMatches(ddb, model);
});

test('after a restart (keys read back from LevelDB, no value cached) the table is the model', async () => {
  await stop();
  const ddb = await start();
  await expectTableMatches(ddb, model);
  // And it goes on working: a key deleted before the restart can be written again.
  expect(await read(ddb, 'P0', 'S0')).toBeUndefined();
  await ddb.send(
    new PutItemCommand({ TableName: TABLE, Item: { ...key('P0', 'S0'), value: { S: 'back' }, count: { N: '1' } } }),
  );
  expect(await read(ddb, 'P0', 'S0')).toEqual({ value: 'back', count: 1 });
});

test('a table description changed by UpdateTable is read back changed, before and after a restart', async () => {
  const describe = async () => (await client!.send(new DescribeTableCommand({ TableName: TABLE }))).Table!;
  expect((await describe()).BillingModeSummary?.BillingMode ?? 'PAY_PER_REQUEST').toBe('PAY_PER_REQUEST');
  await client!.send(
    new UpdateTableCommand({
      TableName: TABLE,
      BillingMode: 'PROVISIONED',
      ProvisionedThroughput: { ReadCapacityUnits: 7, WriteCapacityUnits: 9 },
    }),
  );
  // dynalite marks the table UPDATING, then ACTIVE again on a timer of its own.
  let table = await describe();
  while (table.TableStatus !== 'ACTIVE') {
    await new Promise((done) => setTimeout(done, 20));
    table = await describe();
  }
  expect(table.ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 7, WriteCapacityUnits: 9 });
  await stop();
  await start();
  expect((await describe()).ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 7, WriteCapacityUnits: 9 });
});

/**
 * A callback-style store like dynalite's, whose batches finish only when the test says. Its
 * values are JSON, as dynalite's LevelDB's: a put may carry its value already as JSON text
 * (`valueEncoding: 'utf8'`), which the store holds as the same value.
 */
function slowStore() {
  const data = new Map<string, unknown>();
  const batches: { type: string; key: string }[][] = [];
  const pending: (() => void)[] = [];
  const store = {
    get: (k: string, callback: (err: null, value: unknown) => void) =>
      setImmediate(callback, null, data.has(k) ? structuredClone(data.get(k)) : undefined),
    // Replaced by the front, which sends every write as a batch.
    put: (_k: string, _value: unknown, _callback: (err: Error | null) => void): unknown => undefined,
    del: (_k: string, _callback: (err: Error | null) => void): unknown => undefined,
    batch: (
      operations: { type: string; key: string; value?: unknown; valueEncoding?: string }[],
      callback: (err: null) => void,
    ) => {
      batches.push(operations.map(({ type, key }) => ({ type, key })));
      pending.push(() => {
        for (const op of operations) {
          if (op.type === 'del') data.delete(op.key);
          else data.set(op.key, op.valueEncoding === 'utf8' ? JSON.parse(op.value as string) : op.value);
        }
        callback(null);
      });
    },
    keys: async function* () {
      yield* data.keys();
    },
  };
  /** Lets the front send this turn's batch, then lets the store finish every batch sent. */
  const finishWrites = async () => {
    await new Promise((done) => setImmediate(done));
    pending.splice(0).forEach((finish) => finish());
  };
  return { store, data, batches, finishWrites };
}

const got = (store: ReturnType<typeof slowStore>['store'], k: string) =>
  new Promise<unknown>((done) => store.get(k, (_err: unknown, value: unknown) => done(value)));

test('a read racing a delete is answered absent and never caches the deleted value', async () => {
  const { store, data, finishWrites } = slowStore();
  data.set('k', { v: 1 });
  const front = new LevelFront(store, 1);
  await front.load();
  // Evict k (capacity 1) so a read would have to go to the store.
  const put = new Promise((done) => store.put('other', { v: 2 }, done));
  await finishWrites();
  await put;
  const deleted = new Promise((done) => store.del('k', done));
  expect(await got(store, 'k')).toBeUndefined(); // the delete is on its way: absent, not the old value
  await finishWrites();
  await deleted;
  expect(await got(store, 'k')).toBeUndefined();
  expect(data.has('k')).toBe(false);
});

test('the writes of one turn reach the store as one batch, in order, answered once it holds them', async () => {
  const { store, data, batches, finishWrites } = slowStore();
  const front = new LevelFront(store, 4);
  await front.load();
  const answered: string[] = [];
  store.put('a', 1, () => answered.push('a'));
  store.del('a', () => answered.push('del a'));
  store.batch(
    [
      { type: 'put', key: 'b', value: 2 },
      { type: 'put', key: 'a', value: 3 },
    ],
    () => answered.push('batch'),
  );
  expect(await got(store, 'a')).toBe(3); // read before the store has anything: from memory
  expect(data.size).toBe(0);
  expect(answered).toEqual([]);
  await finishWrites();
  expect(batches).toEqual([
    [
      { type: 'put', key: 'a' },
      { type: 'del', key: 'a' },
      { type: 'put', key: 'b' },
      { type: 'put', key: 'a' },
    ],
  ]);
  expect(answered).toEqual(['a', 'del a', 'batch']);
  expect(Object.fromEntries(data)).toEqual({ a: 3, b: 2 });
  // A promise without a callback, as dynalite's own methods answer.
  const later = store.put('c', 4, undefined as unknown as () => void) as unknown as Promise<void>;
  await finishWrites();
  await expect(later).resolves.toBeUndefined();
  expect(batches).toHaveLength(2);
});

test('a value read is a copy: changing it changes neither the cache nor the next read', async () => {
  const { store, finishWrites } = slowStore();
  const front = new LevelFront(store, 4);
  await front.load();
  store.put('k', { list: [1] }, () => undefined);
  await finishWrites();
  const first = (await got(store, 'k')) as { list: number[] };
  first.list.push(2);
  expect(await got(store, 'k')).toEqual({ list: [1] });
});
