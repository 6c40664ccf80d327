// Makes the embedded DynamoDB answer as slowly as the real one does from Lambda: each call is
// held for a fixed time before dynalite sees it (a few milliseconds in AWS, against tens of
// microseconds on loopback), so a request's synchronous DynamoDB calls show in its latency.
// Every call is also logged (operation and arrival time on the shared performance clock), so
// a benchmark can tell which calls happened while a request was in flight:
// `GET /__local/calls` answers the log and clears it.
//
// `POST /__local/calls/detailed` makes every later call's entry also say what it touched, so a
// benchmark can derive capacity per partition key from what the code does (bench/scale.ts):
// `status` (HTTP), `error` (the AWS error name, if any) and `items`, one per item read or
// written (a Query is one read of everything it returned): { table, index?, pk, access: 'read'
// | 'write', bytes, transactional?, consistent? }, with `bytes` the item's size as DynamoDB
// counts it (names plus values: dynalite's itemSize). An update's item is read back once the
// call is answered, for its whole size; `GET /__local/calls` waits for the descriptions of the
// calls it answers. A write to a table with a global secondary index also names the index's
// partition it lands in.
// Off by default: reading each body here and the read-backs cost the database process CPU.
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { keySchemaReader } from './dynamodb-key-schemas.mjs';
import { insertsOf } from './dynamodb-partiql.mjs';
import { replay } from './dynamodb-replayed-call.mjs';
import { INTERNAL_HEADER } from './dynamodb-transactions.mjs';

const MAX_LOGGED_CALLS = 100_000;
const TARGET_PREFIX = 'DynamoDB_20120810.';
const { itemSize } = createRequire(import.meta.url)('dynalite/db/index.js');

/**
 * @param {import('node:http').Server} server dynalite's server, before it listens
 * @param {number} latencyMs how long each call waits before dynalite handles it
 */
export function addLatency(server, latencyMs) {
  const [dynaliteHandler] = server.listeners('request');
  let calls = [];
  let detailed = false;
  /** Each detailed call's description, settled once its items are known. */
  const describing = new WeakMap();
  const internal = internalClient(server);
  const schemaOf = keySchemaReader((table) =>
    internal('DescribeTable', { TableName: table }).then(({ Table }) => Table),
  );
  server.removeAllListeners('request');
  server.on('request', (req, res) => {
    // The transaction layer's own calls to dynalite (local/dynamodb-transactions.mjs) are part
    // of the call that made them: they neither wait nor count.
    if (req.headers[INTERNAL_HEADER]) return dynaliteHandler.call(server, req, res);
    if (req.method === 'GET' && req.url === '/__local/calls') {
      const answered = calls;
      calls = [];
      Promise.allSettled(answered.map((call) => describing.get(call))).then(() =>
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ calls: answered })),
      );
      return;
    }
    if (req.method === 'POST' && req.url === '/__local/calls/detailed') {
      detailed = true;
      res.writeHead(204).end();
      return;
    }
    const target = String(req.headers['x-amz-target'] ?? '');
    const call = { operation: target.slice(target.indexOf('.') + 1), at: performance.timeOrigin + performance.now() };
    const logged = calls.length < MAX_LOGGED_CALLS;
    if (logged) calls.push(call);
    if (!detailed || !logged || !target.startsWith(TARGET_PREFIX)) {
      setTimeout(() => dynaliteHandler.call(server, req, res), latencyMs);
      return;
    }
    // Pending from its arrival: a log read in the meantime waits for the description.
    const done = new Promise((settled) => {
      let answered = false;
      // A call whose connection closed unanswered has nothing to describe.
      res.once('close', () => answered || settled());
      readBody(req).then((body) => {
        captureAnswer(res, (status, answer) => {
          answered = true;
          call.status = status;
          if (typeof answer?.__type === 'string') call.error = answer.__type.slice(answer.__type.indexOf('#') + 1);
          describe(call, parseJson(body), answer, schemaOf, internal)
            .catch(() => undefined)
            .finally(settled);
        });
        setTimeout(() => dynaliteHandler.call(server, replay(req, body), res), latencyMs);
      });
    });
    describing.set(call, done);
  });
}

/** Calls the callback with the status and parsed body once the answer is sent. */
function captureAnswer(res, onAnswer) {
  const chunks = [];
  const keep = (chunk, encoding) => {
    if (chunk && typeof chunk !== 'function')
      chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? encoding : undefined));
  };
  const write = res.write;
  const end = res.end;
  res.write = function (chunk, encoding, ...rest) {
    keep(chunk, encoding);
    return write.call(this, chunk, encoding, ...rest);
  };
  res.end = function (chunk, encoding, ...rest) {
    keep(chunk, encoding);
    onAnswer(res.statusCode, parseJson(Buffer.concat(chunks).toString('utf8')));
    return end.call(this, chunk, encoding, ...rest);
  };
}

/** Fills `call.items` from the request, its answer and (for updates) the items read back. */
async function describe(call, input, answer, schemaOf, internal) {
  if (!input || typeof input !== 'object') return;
  const items = [];
  const add = async (table, key, access, bytes, extra = {}) => {
    const schema = await schemaOf(table);
    items.push({ table, pk: stringValue(key?.[schema.hash]), access, bytes, ...extra });
  };
  /** A write: its size, and the index partitions it lands in (every index projects ALL). */
  const addWrite = async (table, item, extra = {}) => {
    const schema = await schemaOf(table);
    const bytes = item ? itemSize(item) : 0;
    items.push({ table, pk: stringValue(item?.[schema.hash]), access: 'write', bytes, ...extra });
    for (const index of schema.indexes) {
      const pk = stringValue(item?.[index.hash]);
      if (pk) items.push({ table, index: index.name, pk, access: 'write', bytes, ...extra });
    }
  };
  const readBack = async (table, key) => {
    const { Item } = await internal('GetItem', { TableName: table, Key: key, ConsistentRead: true });
    return Item ?? key;
  };
  const consistent = input.ConsistentRead === true ? { consistent: true } : {};
  switch (call.operation) {
    case 'GetItem':
      await add(input.TableName, input.Key, 'read', answer?.Item ? itemSize(answer.Item) : 0, consistent);
      break;
    case 'PutItem':
      await addWrite(input.TableName, input.Item);
      break;
    case 'UpdateItem':
      await addWrite(input.TableName, await readBack(input.TableName, input.Key));
      break;
    case 'DeleteItem':
      await addWrite(input.TableName, input.Key);
      break;
    case 'Query':
    case 'Scan': {
      const schema = await schemaOf(input.TableName);
      const hash = input.IndexName ? schema.indexes.find((i) => i.name === input.IndexName)?.hash : schema.hash;
      const bytes = (answer?.Items ?? []).reduce((sum, item) => sum + itemSize(item), 0);
      items.push({
        table: input.TableName,
        ...(input.IndexName ? { index: input.IndexName } : {}),
        pk: call.operation === 'Query' ? queriedPartition(input, hash) : '',
        access: 'read',
        bytes,
        ...consistent,
      });
      break;
    }
    case 'BatchGetItem':
      for (const [table, request] of Object.entries(input.RequestItems ?? {})) {
        const found = answer?.Responses?.[table] ?? [];
        const schema = await schemaOf(table);
        const sameKey = (a, b) =>
          [schema.hash, schema.range].every((k) => !k || stringValue(a?.[k]) === stringValue(b?.[k]));
        for (const key of request?.Keys ?? []) {
          const item = found.find((f) => sameKey(f, key));
          await add(table, key, 'read', item ? itemSize(item) : 0, request.ConsistentRead ? { consistent: true } : {});
        }
      }
      break;
    case 'BatchWriteItem':
      for (const [table, writes] of Object.entries(input.RequestItems ?? {})) {
        // Unprocessed writes come back in a later call, where they are counted.
        const unprocessed = new Set((answer?.UnprocessedItems?.[table] ?? []).map((w) => JSON.stringify(w)));
        for (const write of writes ?? []) {
          if (unprocessed.has(JSON.stringify(write))) continue;
          await addWrite(table, write?.PutRequest?.Item ?? write?.DeleteRequest?.Key);
        }
      }
      break;
    case 'TransactWriteItems':
      for (const action of input.TransactItems ?? []) {
        if (action?.Put) await addWrite(action.Put.TableName, action.Put.Item, { transactional: true });
        else if (action?.Update)
          await addWrite(action.Update.TableName, await readBack(action.Update.TableName, action.Update.Key), {
            transactional: true,
          });
        else if (action?.Delete) await addWrite(action.Delete.TableName, action.Delete.Key, { transactional: true });
        // A condition check is charged as a write of the checked item.
        else if (action?.ConditionCheck)
          await addWrite(
            action.ConditionCheck.TableName,
            await readBack(action.ConditionCheck.TableName, action.ConditionCheck.Key),
            { transactional: true },
          );
      }
      break;
    case 'ExecuteStatement':
    case 'BatchExecuteStatement': {
      // A statement the batch refused (its Error) wrote nothing.
      const responses = answer?.Responses;
      for (const [i, { table, item }] of insertsOf(call.operation, input).entries()) {
        if (call.operation === 'BatchExecuteStatement' ? !responses?.[i] || responses[i].Error : call.status !== 200)
          continue;
        await addWrite(table, item);
      }
      break;
    }
    default:
      return;
  }
  call.items = items;
}

/** The partition a Query reads: the value its key condition sets the hash key equal to. */
function queriedPartition(input, hash) {
  const legacy = input.KeyConditions?.[hash]?.AttributeValueList?.[0];
  if (legacy) return stringValue(legacy);
  const names = input.ExpressionAttributeNames ?? {};
  for (const [, name, value] of String(input.KeyConditionExpression ?? '').matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
    if ((names[name] ?? name) === hash) return stringValue(input.ExpressionAttributeValues?.[value]);
  }
  return '';
}

function stringValue(value) {
  return String(value?.S ?? value?.N ?? value?.B ?? '');
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/**
 * Calls for the detailed log (read-backs, table descriptions): marked internal, so they pass
 * this layer unheld and unlogged, and go through the transaction layer like any other call.
 */
function internalClient(server) {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  return (operation, input) =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.address().port,
          method: 'POST',
          path: '/',
          agent,
          headers: {
            'content-type': 'application/x-amz-json-1.0',
            'x-amz-target': `${TARGET_PREFIX}${operation}`,
            'x-amz-date': '20260101T000000Z',
            authorization:
              'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
            [INTERNAL_HEADER]: 'call-log',
          },
        },
        (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const answer = parseJson(Buffer.concat(chunks).toString('utf8')) ?? {};
            if ((res.statusCode ?? 500) < 300) resolve(answer);
            else reject(new Error(`${operation}: ${res.statusCode} ${answer.__type ?? ''}`));
          });
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(input));
    });
}
