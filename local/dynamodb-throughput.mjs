// Per-partition throughput for the embedded DynamoDB, so a hot partition key is throttled on a
// laptop as it is in AWS (1,000 WCU/s and 3,000 RCU/s per partition key). The layer sits in front
// of the transaction layer (local/dynamodb-transactions.mjs) in the dynalite child process and
// answers a throttled call itself, in AWS's JSON-protocol shapes.
//
// The model:
// - One token bucket per table and partition key value (per index and its key value for a Query
//   on an index), one for reads and one for writes. It refills continuously at the configured
//   rate and holds at most BURST_SECONDS of it; a partition not seen yet (or idle) starts full.
// - A call is admitted when every partition it touches has a positive balance; it is then debited
//   its cost, which may leave the balance below zero: a debt later refills repay. So a call
//   larger than the bucket still runs once, and a sustained load gets the rate and no more.
// - Costs as DynamoDB counts them: a write 1 WCU per started KB; a read 1 RCU per started 4 KB
//   when strongly consistent, half when eventually consistent; a transactional write twice.
//   GetItem, PutItem, UpdateItem and DeleteItem pay what dynalite measures (the larger of the old
//   and new item for a write), Query the summed size of every item it read, and never less than
//   one read: the layer asks for ConsumedCapacity, settles the debit from it and hides it when the
//   caller did not ask. A failed conditional write still pays, as in AWS; a throttled call or one
//   dynalite refuses pays nothing. Batches and transactions pay per item from the request: a put
//   by its item's size, an update, delete or condition check 1 unit (2 in a transaction), a batch
//   key as one item of at most 4 KB.
// - Answers: a throttled single-item call, Query, or batch whose every item is throttled gets
//   HTTP 400 ProvisionedThroughputExceededException with AWS's on-demand message and a
//   ThrottlingReasons entry (…KeyRangeThroughputExceeded and the table or index ARN); a batch
//   with some items throttled runs the others and returns those in UnprocessedItems or
//   UnprocessedKeys; a transaction touching a throttled partition is cancelled as a whole
//   (TransactionCanceledException, ThrottlingError for each action on a throttled partition,
//   None for the others) and neither written nor charged.
//
// How this differs from AWS, on purpose or for want of information:
// - AWS partitions hold key ranges and split under heat; here every partition key value has its
//   own bucket and never splits. That is AWS's ceiling for a single key value, which is what a
//   design must fit; keys that AWS would place on one partition are not throttled together.
// - AWS's burst capacity (up to 300 s of unused throughput) is a table-level, best-effort
//   allowance; here each partition holds BURST_SECONDS (1 s) of its rate, so tests see limits
//   promptly and a design cannot lean on a burst AWS does not promise.
// - No table-level or account limits (on-demand tables start at 4,000 WRU/s and 12,000 RRU/s),
//   and writes are not charged to the indexes they update.
// - Sizes are dynalite's measure (string lengths in UTF-16 code units where AWS counts UTF-8
//   bytes). An overwrite in a batch or transaction is charged by its new item only, and an
//   update or delete there 1 unit: the old item is not read to learn its size.
// - Scan is never refused (its partitions are unknown until it has read them); what it read is
//   charged to the partitions of the items it returns. TransactGetItems is not served by dynalite.
//
// Tests scale the rates down (GATEWAY_DYNAMODB_PARTITION_WCU / _RCU, or the options of
// local/dynamodb.ts) and may replace the clock with one that moves only when told to:
// `POST /__local/throughput/advance?ms=N`, served only when the child was started that way;
// `POST /__local/throughput/rates?writeUnitsPerSecond=N&readUnitsPerSecond=M` (either, a number
// or `off`) changes the rates from then on, so a test can make a storm start and pass.
// `GET /__local/throughput` answers the limits, the throttled calls by operation (a batch counts
// when any item was held back), the batch items held back and the throttled partitions by name
// (`<table>[/<index>] <key value>`), so a load test can show it met them, and whose they were.
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { crc32 } from 'node:zlib';
import { readCall, replay } from './dynamodb-replayed-call.mjs';
import { INTERNAL_HEADER } from './dynamodb-transactions.mjs';

export const DEFAULT_WRITE_UNITS_PER_SECOND = 1000;
export const DEFAULT_READ_UNITS_PER_SECOND = 3000;
export const BURST_SECONDS = 1;
const TRANSACTION_FACTOR = 2;
/** No valid call names more tables: BatchGetItem and TransactWriteItems take at most 100 items. */
const MAX_TABLES_PER_CALL = 100;
const MAX_BATCH_WRITES = 25;
const MAX_BATCH_GET_KEYS = 100;
/** Buckets are swept of full ones (the same as absent) when the map reaches this size or twice its last. */
const MIN_SWEEP_SIZE = 4096;
const TARGET_PREFIX = 'DynamoDB_20120810.';
const CONTROL_PATH = '/__local/throughput';
const HOT_KEY_MESSAGE =
  'Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your ' +
  'table or index so please try again shortly. If exceptions persist, check if you have a hot key: ' +
  'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html';
const THROUGHPUT_EXCEEDED = 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException';
const SINGLE_ITEM = {
  GetItem: { read: true, keyField: 'Key' },
  PutItem: { read: false, keyField: 'Item' },
  UpdateItem: { read: false, keyField: 'Key' },
  DeleteItem: { read: false, keyField: 'Key' },
};
const TRANSACT_KINDS = ['Put', 'Update', 'Delete', 'ConditionCheck'];
const SCHEMA_CHANGES = new Set(['CreateTable', 'DeleteTable', 'UpdateTable']);
const CAPACITY_FIELD = '"ConsumedCapacity":{"CapacityUnits":';
/** The ConsumedCapacity this layer asked for, as dynalite writes it: the answer's last member. */
const INJECTED_TAIL = /^"ConsumedCapacity":\{"CapacityUnits":[0-9.]+,"TableName":"[^"\\]*"\}\}$/;

// dynalite's own measure of an item, so batch and transaction items are sized as the calls
// dynalite measures itself. The module is the one dynalite already loaded.
const { itemSize } = createRequire(createRequire(import.meta.url).resolve('dynalite'))('./db');

/**
 * Wraps the request handler on `server` (before `listen`, after the transaction layer).
 * @param {import('node:http').Server} server
 * @param {{ writeUnitsPerSecond?: number | 'off', readUnitsPerSecond?: number | 'off', manualClock?: boolean }} options
 *   rates in capacity units per second per partition key ('off': unlimited; absent: AWS's);
 *   `manualClock`: time stands still until `POST /__local/throughput/advance?ms=N` (tests only)
 */
export function addThroughput(server, options = {}) {
  const [inner] = server.listeners('request');
  server.removeAllListeners('request');
  let manualNow = 0;
  const clock = options.manualClock ? () => manualNow : () => performance.now();
  const rateOf = (value, fallback) => (value === 'off' ? undefined : (value ?? fallback));
  let writeRate = rateOf(options.writeUnitsPerSecond, DEFAULT_WRITE_UNITS_PER_SECOND);
  let readRate = rateOf(options.readUnitsPerSecond, DEFAULT_READ_UNITS_PER_SECOND);
  const meter = {
    write: writeRate === undefined ? undefined : new PartitionBuckets(writeRate, clock),
    read: readRate === undefined ? undefined : new PartitionBuckets(readRate, clock),
    throttledCalls: {},
    throttledBatchItems: 0,
    throttledPartitions: new Map(),
  };
  const schemas = new TableSchemas(server);

  const control = (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (req.method === 'GET' && url.pathname === CONTROL_PATH) {
      return sendJson(res, 200, {
        writeUnitsPerSecond: writeRate ?? 'off',
        readUnitsPerSecond: readRate ?? 'off',
        burstSeconds: BURST_SECONDS,
        throttledCalls: meter.throttledCalls,
        throttledBatchItems: meter.throttledBatchItems,
        throttledPartitions: Object.fromEntries(meter.throttledPartitions),
      });
    }
    if (req.method === 'POST' && url.pathname === `${CONTROL_PATH}/rates`) {
      // A load test's storm passing (or starting): new rates from now on, for every partition.
      const parsed = {};
      for (const [name, current] of [
        ['writeUnitsPerSecond', writeRate],
        ['readUnitsPerSecond', readRate],
      ]) {
        const given = url.searchParams.get(name);
        if (given === null) parsed[name] = current;
        else if (given === 'off') parsed[name] = undefined;
        else if (Number(given) > 0 && Number.isFinite(Number(given))) parsed[name] = Number(given);
        else return sendJson(res, 400, { message: `${name} must be a number > 0 or off` });
      }
      const apply = (buckets, rate) =>
        rate === undefined ? undefined : buckets ? (buckets.setRate(rate), buckets) : new PartitionBuckets(rate, clock);
      meter.write = apply(meter.write, parsed.writeUnitsPerSecond);
      meter.read = apply(meter.read, parsed.readUnitsPerSecond);
      writeRate = parsed.writeUnitsPerSecond;
      readRate = parsed.readUnitsPerSecond;
      return sendJson(res, 200, { writeUnitsPerSecond: writeRate ?? 'off', readUnitsPerSecond: readRate ?? 'off' });
    }
    const ms = Number(url.searchParams.get('ms'));
    if (options.manualClock && req.method === 'POST' && url.pathname === `${CONTROL_PATH}/advance`) {
      if (!Number.isFinite(ms) || ms < 0) return sendJson(res, 400, { message: 'ms must be a number ≥ 0' });
      manualNow += ms;
      return sendJson(res, 200, { now: manualNow });
    }
    sendJson(res, 404, { message: `no ${req.method} ${url.pathname}` });
  };

  server.on('request', async (req, res) => {
    // The transaction layer's calls (and this layer's own) are part of a call already metered.
    if (req.headers[INTERNAL_HEADER]) return inner.call(server, req, res);
    if (req.url?.startsWith(CONTROL_PATH)) return control(req, res);
    const target = String(req.headers['x-amz-target'] ?? '');
    const operation = target.startsWith(TARGET_PREFIX) ? target.slice(TARGET_PREFIX.length) : '';
    if (SCHEMA_CHANGES.has(operation)) {
      schemas.forget();
      res.once('finish', () => schemas.forget());
    }
    const handle = req.method === 'POST' ? HANDLERS.get(operation) : undefined;
    if (!handle) return inner.call(server, req, res);
    const call = await readCall(req).catch(() => undefined);
    if (call === undefined) return res.destroy();
    const { raw, json } = call;
    const body = raw.toString('utf8');
    const input = json && typeof json === 'object' && !Array.isArray(json) ? json : undefined;
    let forwarded = false;
    /** Hands the call on with `text` as its body; `parsed`, when known, is what `text` parses to. */
    const forward = (text = body, parsed = text === body ? json : undefined) => {
      forwarded = true;
      inner.call(server, replay(req, text === body ? raw : text, { json: parsed }), res);
    };
    const tables = input && tablesNamedIn(input);
    if (!tables) return forward();
    // Usually known already: then the call is planned without waiting for anything.
    if (tables.some((table) => !schemas.isKnown(table))) await schemas.load(tables);
    try {
      handle({ operation, input, body, res, meter, schemas, forward });
    } catch {
      // A request this layer cannot measure (an item that is no item) is dynalite's to refuse, uncharged.
      if (!forwarded) forward();
    }
  });
}

/** Token buckets for one kind of capacity, by partition. */
class PartitionBuckets {
  #rate;
  #capacity;
  #clock;
  /** Partition → { balance, at }: the balance at time `at`. */
  #buckets = new Map();
  #sweepAt = MIN_SWEEP_SIZE;

  constructor(rate, clock) {
    this.#rate = rate;
    this.#capacity = rate * BURST_SECONDS;
    this.#clock = clock;
  }

  /** From now on, `rate` units a second: what each partition holds now is kept (up to the new capacity). */
  setRate(rate) {
    const now = this.#clock();
    for (const partition of this.#buckets.keys()) {
      this.#buckets.set(partition, { balance: this.balance(partition), at: now });
    }
    this.#rate = rate;
    this.#capacity = rate * BURST_SECONDS;
    for (const [partition, bucket] of this.#buckets) {
      this.#buckets.set(partition, { balance: Math.min(this.#capacity, bucket.balance), at: now });
    }
  }

  balance(partition) {
    const bucket = this.#buckets.get(partition);
    if (!bucket) return this.#capacity;
    return Math.min(this.#capacity, bucket.balance + ((this.#clock() - bucket.at) * this.#rate) / 1000);
  }

  /** Takes `units` (a negative amount gives back) from the partition's balance, which may go below zero. */
  debit(partition, units) {
    if (units === 0) return;
    const balance = Math.min(this.#capacity, this.balance(partition) - units);
    this.#buckets.set(partition, { balance, at: this.#clock() });
    if (this.#buckets.size >= this.#sweepAt) this.#sweep();
  }

  #sweep() {
    for (const partition of this.#buckets.keys()) {
      if (this.balance(partition) >= this.#capacity) this.#buckets.delete(partition);
    }
    this.#sweepAt = Math.max(MIN_SWEEP_SIZE, 2 * this.#buckets.size);
  }
}

/**
 * Key attribute names and ARNs by table, from DescribeTable (asked of dynalite through the
 * server itself, as the transaction layer does), forgotten whenever a table is created, changed
 * or deleted. Only tables that exist are remembered: one may be created later.
 */
class TableSchemas {
  #server;
  #agent = new Agent({ keepAlive: true, maxSockets: 4 });
  #known = new Map();
  #loading = new Map();
  #generation = 0;

  constructor(server) {
    this.#server = server;
  }

  forget() {
    this.#known.clear();
    this.#loading.clear();
    this.#generation++;
  }

  isKnown(tableName) {
    return this.#known.has(tableName);
  }

  /** The table's schema, or undefined when it is not known to exist (dynalite will say so). */
  get(tableName) {
    return this.#known.get(tableName);
  }

  /** Describes the tables not known yet; never rejects. */
  load(tableNames) {
    return Promise.all(
      tableNames
        .filter((name) => !this.#known.has(name))
        .map((name) => {
          let loading = this.#loading.get(name);
          if (!loading) {
            const generation = this.#generation;
            loading = this.#describe(name).then(
              (table) => {
                if (generation === this.#generation) this.#known.set(name, schemaOf(table));
              },
              () => undefined,
            );
            this.#loading.set(name, loading);
            void loading.finally(() => {
              if (this.#loading.get(name) === loading) this.#loading.delete(name);
            });
          }
          return loading;
        }),
    );
  }

  #describe(tableName) {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.#server.address().port,
          method: 'POST',
          path: '/',
          agent: this.#agent,
          headers: {
            'content-type': 'application/x-amz-json-1.0',
            'x-amz-target': `${TARGET_PREFIX}DescribeTable`,
            'x-amz-date': '20260101T000000Z',
            authorization:
              'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
            [INTERNAL_HEADER]: 'throughput',
          },
        },
        (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const answer = parseObject(Buffer.concat(chunks).toString('utf8'));
            if (res.statusCode === 200 && answer?.Table) resolve(answer.Table);
            else reject(new Error(`DescribeTable ${tableName}: ${res.statusCode}`));
          });
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ TableName: tableName }));
    });
  }
}

/**
 * The tables a metered call names, or undefined when it names none or more than any valid call
 * can (dynalite refuses it; describing them all would be work a caller could multiply).
 */
function tablesNamedIn(input) {
  let names;
  if (typeof input.TableName === 'string') names = [input.TableName];
  else if (input.RequestItems && typeof input.RequestItems === 'object') names = Object.keys(input.RequestItems);
  else if (Array.isArray(input.TransactItems) && input.TransactItems.length <= MAX_TABLES_PER_CALL) {
    names = input.TransactItems.flatMap((entry) =>
      TRANSACT_KINDS.map((kind) => entry?.[kind]?.TableName).filter((name) => typeof name === 'string'),
    );
  }
  const distinct = [...new Set(names ?? [])];
  return distinct.length > 0 && distinct.length <= MAX_TABLES_PER_CALL ? distinct : undefined;
}

function schemaOf(table) {
  const hashOf = (keySchema) => keySchema?.find((key) => key.KeyType === 'HASH')?.AttributeName;
  return {
    name: table.TableName,
    arn: table.TableArn,
    keyNames: (table.KeySchema ?? []).map((key) => key.AttributeName),
    hashKey: hashOf(table.KeySchema),
    indexHashKeys: new Map(
      [...(table.GlobalSecondaryIndexes ?? []), ...(table.LocalSecondaryIndexes ?? [])].map((index) => [
        index.IndexName,
        hashOf(index.KeySchema),
      ]),
    ),
  };
}

/**
 * A partition of `schema`'s table (or of one of its indexes) whose key value is `value`, with what
 * a throttled call reports about it; undefined when the value is missing (dynalite refuses the call).
 */
function partitionOf(schema, value, read, indexName) {
  if (!value || typeof value !== 'object') return undefined;
  const onIndex = typeof indexName === 'string';
  return {
    id: `${schema.name}\n${onIndex ? indexName : ''}\n${JSON.stringify(value)}`,
    read,
    reason: `${onIndex ? 'Index' : 'Table'}${read ? 'Read' : 'Write'}KeyRangeThroughputExceeded`,
    resource: onIndex ? `${schema.arn}/index/${indexName}` : schema.arn,
  };
}

const bucketsOf = (meter, partition) => (partition.read ? meter.read : meter.write);

/** Whether the partition may take another call now (always, when its kind is not limited). */
function hasCapacity(meter, partition, pending = 0) {
  const buckets = bucketsOf(meter, partition);
  return !buckets || buckets.balance(partition.id) - pending > 0;
}

function charge(meter, partition, units) {
  bucketsOf(meter, partition)?.debit(partition.id, units);
}

/** Distinct partitions `GET /__local/throughput` names at most (the first ones throttled). */
const MAX_NAMED_PARTITIONS = 10_000;

/**
 * Counts a throttled call, and each partition that refused it (or an item of it) by name,
 * `<table>[/<index>] <key value>`, so a test can tell whose partitions were throttled.
 */
function countThrottled(meter, operation, partitions) {
  meter.throttledCalls[operation] = (meter.throttledCalls[operation] ?? 0) + 1;
  for (const partition of partitions) {
    const [table, index, value] = partition.id.split('\n');
    const name = `${table}${index ? `/${index}` : ''} ${Object.values(JSON.parse(value))[0]}`;
    const seen = meter.throttledPartitions.get(name);
    if (seen === undefined && meter.throttledPartitions.size >= MAX_NAMED_PARTITIONS) continue;
    meter.throttledPartitions.set(name, (seen ?? 0) + 1);
  }
}

/** An item whose size cannot be measured: not a valid item, so dynalite refuses the call. */
class Unmeasurable extends Error {}

function sizeOf(item) {
  let size;
  try {
    size = itemSize(item);
  } catch {
    throw new Unmeasurable();
  }
  if (!Number.isFinite(size)) throw new Unmeasurable();
  return size;
}

const writeUnits = (item) => Math.max(1, Math.ceil(sizeOf(item) / 1024));

const HANDLERS = new Map(
  Object.entries({
    GetItem: singleItem,
    PutItem: singleItem,
    UpdateItem: singleItem,
    DeleteItem: singleItem,
    Query: query,
    Scan: scan,
    BatchWriteItem: batchWriteItem,
    BatchGetItem: batchGetItem,
    TransactWriteItems: transactWriteItems,
  }),
);

function singleItem({ operation, input, body, res, meter, schemas, forward }) {
  const { read, keyField } = SINGLE_ITEM[operation];
  const schema = schemas.get(input.TableName);
  const partition = schema && partitionOf(schema, input[keyField]?.[schema.hashKey], read);
  if (!partition) return forward();
  const estimate = read ? (input.ConsistentRead ? 1 : 0.5) : operation === 'PutItem' ? writeUnits(input.Item) : 1;
  const exact = operation === 'PutItem' && createsOnly(input, schema);
  return meteredCall({ operation, input, body, res, meter, forward, partition, estimate, exact });
}

/**
 * Whether a PutItem can only create its item: its condition is that a key attribute does not
 * exist (every item has its key attributes), as the usage ledger's entries are written. Such a
 * put that succeeds consumes its new item's units, which is its estimate (dynalite measures
 * max(old, new) with no old item), so there is nothing to measure.
 */
function createsOnly(input, schema) {
  const match = CREATE_ONLY.exec(typeof input.ConditionExpression === 'string' ? input.ConditionExpression : '');
  if (!match) return false;
  const name = match[1].startsWith('#') ? input.ExpressionAttributeNames?.[match[1]] : match[1];
  return schema.keyNames.includes(name);
}

const CREATE_ONLY = /^\s*attribute_not_exists\s*\(\s*(#?[A-Za-z0-9_]+)\s*\)\s*$/;

function query({ operation, input, body, res, meter, schemas, forward }) {
  const schema = schemas.get(input.TableName);
  const hashKey = typeof input.IndexName === 'string' ? schema?.indexHashKeys.get(input.IndexName) : schema?.hashKey;
  const partition = hashKey && partitionOf(schema, queriedValue(input, hashKey), true, input.IndexName);
  if (!partition) return forward();
  const estimate = input.ConsistentRead ? 1 : 0.5;
  return meteredCall({ operation, input, body, res, meter, forward, partition, estimate });
}

/**
 * One partition's call: refused when the partition has no capacity, else debited `estimate` now
 * and settled with what dynalite measured once it answers. An `exact` estimate is what the call
 * consumes if it succeeds: dynalite is not asked to measure it (nor its answer rewritten).
 */
function meteredCall({ operation, input, body, res, meter, forward, partition, estimate, exact = false }) {
  if (!hasCapacity(meter, partition)) {
    countThrottled(meter, operation, [partition]);
    return sendThrottled(res, [partition]);
  }
  charge(meter, partition, estimate);
  const asked = input.ReturnConsumedCapacity === 'TOTAL' || input.ReturnConsumedCapacity === 'INDEXES';
  onAnswer(res, (status, text) => {
    if (status !== 200) {
      // AWS charges a write whose condition failed; nothing else that failed consumed capacity.
      if (!text?.includes('#ConditionalCheckFailedException')) charge(meter, partition, -estimate);
      return undefined;
    }
    if (exact) return undefined;
    const at = text.lastIndexOf(CAPACITY_FIELD);
    if (at < 0) return undefined;
    const measured = Number.parseFloat(text.slice(at + CAPACITY_FIELD.length, at + CAPACITY_FIELD.length + 32));
    // The estimate is also the least a call costs (dynalite counts an empty Query as free).
    if (Number.isFinite(measured)) charge(meter, partition, Math.max(measured, estimate) - estimate);
    return asked ? undefined : withoutCapacity(text, at);
  });
  if (asked || exact) return forward();
  // The parse of the body it forwards, as JSON.parse gives it (a later member wins in place).
  forward(withTotalCapacity(body), { ...input, ReturnConsumedCapacity: 'TOTAL' });
}

/** The value a Query's key condition gives `hashKey`, from the expression or the legacy KeyConditions. */
function queriedValue(input, hashKey) {
  const legacy = input.KeyConditions?.[hashKey];
  if (legacy) return legacy.ComparisonOperator === 'EQ' ? legacy.AttributeValueList?.[0] : undefined;
  const expression = input.KeyConditionExpression;
  if (typeof expression !== 'string') return undefined;
  const nameOf = (token) => (token.startsWith('#') ? input.ExpressionAttributeNames?.[token] : token);
  for (const [, left, right] of expression.matchAll(/([#:]?[\w.]+)\s*=\s*([#:]?[\w.]+)/g)) {
    const [name, placeholder] = left.startsWith(':') ? [right, left] : [left, right];
    if (placeholder.startsWith(':') && nameOf(name) === hashKey) return input.ExpressionAttributeValues?.[placeholder];
  }
  return undefined;
}

function scan({ input, body, res, meter, schemas, forward }) {
  const schema = schemas.get(input.TableName);
  const hashKey = typeof input.IndexName === 'string' ? schema?.indexHashKeys.get(input.IndexName) : schema?.hashKey;
  if (!hashKey) return forward();
  onAnswer(res, (status, text) => {
    if (status !== 200) return undefined;
    const bytes = new Map();
    for (const item of parseObject(text)?.Items ?? []) {
      const partition = partitionOf(schema, item[hashKey], true, input.IndexName);
      if (partition) bytes.set(partition.id, { partition, size: (bytes.get(partition.id)?.size ?? 0) + sizeOf(item) });
    }
    for (const { partition, size } of bytes.values()) {
      charge(meter, partition, Math.ceil(size / 4096) / (input.ConsistentRead ? 1 : 2));
    }
    return undefined;
  });
  forward(body);
}

/**
 * BatchWriteItem: requests on partitions without capacity come back unprocessed; the others are
 * sent on and charged. A batch this layer finds malformed goes to dynalite whole, which refuses it.
 */
function batchWriteItem({ operation, input, res, meter, schemas, forward }) {
  const planned = planBatch(input, schemas, false, (request) => {
    const put = request?.PutRequest?.Item;
    const key = put ?? request?.DeleteRequest?.Key;
    if (!key || (put && request.DeleteRequest)) return undefined;
    return { key, units: put ? writeUnits(put) : 1 };
  });
  if (!planned) return forward();
  const { admitted, unprocessed } = admitBatch(planned, meter);
  return answerBatch({ operation, input, res, meter, forward, admitted, unprocessed }, (table, requests) => requests);
}

function batchGetItem({ operation, input, res, meter, schemas, forward }) {
  const planned = planBatch(input, schemas, true, (key, tableRequest) =>
    key && typeof key === 'object' ? { key, units: tableRequest.ConsistentRead ? 1 : 0.5 } : undefined,
  );
  if (!planned) return forward();
  const { admitted, unprocessed } = admitBatch(planned, meter);
  return answerBatch({ operation, input, res, meter, forward, admitted, unprocessed }, (table, keys) => ({
    ...input.RequestItems[table],
    Keys: keys,
  }));
}

/**
 * Every entry of a batch with its partition and cost, by table in request order; undefined when
 * the batch is not one dynalite would accept as far as keys go (no items or too many, an unknown
 * table, an entry without its partition key, one item twice): cutting it down to the admitted
 * part must not make a refused batch acceptable.
 */
function planBatch(input, schemas, read, entryOf) {
  const requestItems = input.RequestItems;
  if (!requestItems || typeof requestItems !== 'object') return undefined;
  const planned = [];
  const seen = new Set();
  for (const [table, tableRequest] of Object.entries(requestItems)) {
    const entries = read ? tableRequest?.Keys : tableRequest;
    if (!Array.isArray(entries) || entries.length === 0) return undefined;
    const schema = schemas.get(table);
    if (!schema) return undefined;
    for (const entry of entries) {
      const plan = entryOf(entry, tableRequest);
      const partition = plan && partitionOf(schema, plan.key[schema.hashKey], read);
      if (!partition) return undefined;
      const identity = JSON.stringify([table, schema.keyNames.map((name) => plan.key[name])]);
      if (seen.has(identity)) return undefined;
      seen.add(identity);
      planned.push({ table, entry, partition, units: plan.units });
    }
  }
  return planned.length > 0 && planned.length <= (read ? MAX_BATCH_GET_KEYS : MAX_BATCH_WRITES) ? planned : undefined;
}

function admitBatch(planned, meter) {
  const admitted = [];
  const unprocessed = [];
  for (const item of planned) {
    if (hasCapacity(meter, item.partition)) {
      charge(meter, item.partition, item.units);
      admitted.push(item);
    } else {
      unprocessed.push(item);
    }
  }
  return { admitted, unprocessed };
}

/** Sends the admitted part of a batch on and adds the rest to the answer's unprocessed ones. */
function answerBatch({ operation, input, res, meter, forward, admitted, unprocessed }, tableEntry) {
  if (unprocessed.length > 0)
    countThrottled(
      meter,
      operation,
      unprocessed.map((item) => item.partition),
    );
  meter.throttledBatchItems += unprocessed.length;
  if (admitted.length === 0) {
    return sendThrottled(
      res,
      unprocessed.map((item) => item.partition),
    );
  }
  onAnswer(res, (status, text) => {
    if (status !== 200) {
      for (const item of admitted) charge(meter, item.partition, -item.units);
      return undefined;
    }
    if (unprocessed.length === 0) return undefined;
    const answer = parseObject(text);
    if (!answer) return undefined;
    const field = operation === 'BatchWriteItem' ? 'UnprocessedItems' : 'UnprocessedKeys';
    const held = (answer[field] ??= {});
    for (const [table, entries] of groupByTable(unprocessed)) {
      const earlier = operation === 'BatchWriteItem' ? (held[table] ?? []) : (held[table]?.Keys ?? []);
      held[table] = tableEntry(table, [...earlier, ...entries]);
    }
    return JSON.stringify(answer);
  });
  if (unprocessed.length === 0) return forward();
  const requestItems = {};
  for (const [table, entries] of groupByTable(admitted)) requestItems[table] = tableEntry(table, entries);
  forward(JSON.stringify({ ...input, RequestItems: requestItems }));
}

function groupByTable(items) {
  const byTable = new Map();
  for (const { table, entry } of items) {
    if (!byTable.has(table)) byTable.set(table, []);
    byTable.get(table).push(entry);
  }
  return byTable;
}

/**
 * All or nothing: any action on a partition without capacity (counting the transaction's own
 * earlier actions there) cancels the whole transaction before it touches anything.
 */
function transactWriteItems({ operation, input, res, meter, schemas, forward }) {
  const actions = planTransaction(input, schemas);
  if (!actions) return forward();
  const pending = new Map();
  const reasons = actions.map(({ partition, units }) => {
    const throttled = !hasCapacity(meter, partition, pending.get(partition.id) ?? 0);
    pending.set(partition.id, (pending.get(partition.id) ?? 0) + units);
    return throttled ? { Code: 'ThrottlingError', Message: HOT_KEY_MESSAGE } : { Code: 'None' };
  });
  if (reasons.some((reason) => reason.Code !== 'None')) {
    countThrottled(
      meter,
      operation,
      actions.filter((_, i) => reasons[i].Code !== 'None').map((action) => action.partition),
    );
    return sendJson(res, 400, {
      __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
      CancellationReasons: reasons,
    });
  }
  for (const { partition, units } of actions) charge(meter, partition, units);
  onAnswer(res, (status, text) => {
    // Refused before it ran (validation): nothing consumed. A cancelled one ran its checks.
    if (status !== 200 && !text?.includes('#TransactionCanceledException')) {
      for (const { partition, units } of actions) charge(meter, partition, -units);
    }
    return undefined;
  });
  forward();
}

/** The transaction's actions with partitions and costs; undefined when the transaction layer would refuse it. */
function planTransaction(input, schemas) {
  const items = input.TransactItems;
  if (!Array.isArray(items) || items.length === 0) return undefined;
  const actions = [];
  const seen = new Set();
  for (const entry of items) {
    const kinds = TRANSACT_KINDS.filter((kind) => entry?.[kind] !== undefined);
    if (kinds.length !== 1) return undefined;
    const params = entry[kinds[0]];
    const schema = schemas.get(params?.TableName);
    const key = kinds[0] === 'Put' ? params?.Item : params?.Key;
    const partition = schema && partitionOf(schema, key?.[schema.hashKey], false);
    if (!partition) return undefined;
    const identity = JSON.stringify([schema.name, schema.keyNames.map((name) => key[name])]);
    if (seen.has(identity)) return undefined;
    seen.add(identity);
    actions.push({ partition, units: TRANSACTION_FACTOR * (kinds[0] === 'Put' ? writeUnits(key) : 1) });
  }
  return actions;
}

/**
 * Calls `settle(status, body)` with the answer dynalite is about to send; when it returns a new
 * body, that is sent instead (dynalite sets its headers with setHeader, so they can still change).
 */
function onAnswer(res, settle) {
  const end = res.end;
  res.end = function (chunk, ...rest) {
    res.end = end;
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined;
    let replaced;
    try {
      replaced = settle(res.statusCode, text);
    } catch {
      // Metering must never cost the caller its answer.
      replaced = undefined;
    }
    if (replaced === undefined || res.headersSent) return end.call(this, chunk, ...rest);
    res.setHeader('Content-Length', Buffer.byteLength(replaced));
    res.setHeader('x-amz-crc32', crc32(replaced));
    return end.call(this, replaced, ...rest);
  };
}

/** The request asking for ConsumedCapacity TOTAL (a later member wins over the caller's NONE). */
function withTotalCapacity(body) {
  const end = body.lastIndexOf('}');
  const head = body.slice(0, end).trimEnd();
  return `${head}${head.endsWith('{') ? '' : ','}"ReturnConsumedCapacity":"TOTAL"}`;
}

/** The answer without the ConsumedCapacity member starting at `at`, which this layer asked for. */
function withoutCapacity(text, at) {
  if (!INJECTED_TAIL.test(text.slice(at))) {
    const answer = parseObject(text);
    if (!answer) return undefined;
    delete answer.ConsumedCapacity;
    return JSON.stringify(answer);
  }
  const head = text.slice(0, at).trimEnd();
  return `${head.endsWith(',') ? head.slice(0, -1) : head}}`;
}

function sendThrottled(res, partitions) {
  const seen = new Set();
  const reasons = [];
  for (const { reason, resource } of partitions) {
    if (seen.has(`${reason} ${resource}`)) continue;
    seen.add(`${reason} ${resource}`);
    reasons.push({ reason, resource });
  }
  sendJson(res, 400, { __type: THROUGHPUT_EXCEEDED, message: HOT_KEY_MESSAGE, ThrottlingReasons: reasons });
}

function sendJson(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(text),
    'x-amz-crc32': crc32(text),
    'x-amzn-requestid': randomBytes(26).toString('hex').toUpperCase(),
  });
  res.end(text);
}

function parseObject(text) {
  if (typeof text !== 'string') return undefined;
  try {
    const value = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
