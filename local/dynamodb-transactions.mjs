// TransactWriteItems for the embedded DynamoDB. dynalite does not implement transactions, so
// this layer sits in front of its request handler (in the dynalite child process): it runs a
// transaction's actions one by one through dynalite itself, each with its own condition, and
// undoes the applied ones from snapshots when any condition fails, answering in the AWS
// JSON-protocol shapes (TransactionCanceledException with one CancellationReason per action).
//
// Isolation, by table: a transaction holds the tables it writes exclusively; every other request
// holds the tables it names shared (they run concurrently with each other as before). So no
// write lands between a transaction's snapshot and its rollback, and no read sees half a
// transaction, while requests to other tables (cache reads, key lookups) never wait behind one,
// as in DynamoDB. The layer's own calls to dynalite carry a per-process token that lets them past.
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { keySchemaReader } from './dynamodb-key-schemas.mjs';
import { readCall, replay } from './dynamodb-replayed-call.mjs';

const TARGET_PREFIX = 'DynamoDB_20120810.';
const MAX_ACTIONS = 100;
const ACTION_KINDS = ['Put', 'Update', 'Delete', 'ConditionCheck'];
export const INTERNAL_HEADER = 'x-local-transaction-layer';
const CONDITION_FAILED = 'The conditional request failed';

/** Wraps dynalite's request handler on `server`. Call before `listen`. */
export function addTransactions(server) {
  const [dynaliteHandler] = server.listeners('request');
  server.removeAllListeners('request');
  const token = randomBytes(16).toString('hex');
  const gates = new TableGates();
  const internal = internalClient(server, token);
  const keySchemas = keySchemaReader((table) =>
    internal('DescribeTable', { TableName: table }).then(({ Table }) => Table),
  );
  server.on('request', async (req, res) => {
    if (req.headers[INTERNAL_HEADER] === token) return dynaliteHandler(req, res);
    const { raw, json: input } = await readCall(req).catch(() => ({ raw: Buffer.alloc(0), json: undefined }));
    if (req.headers['x-amz-target'] === `${TARGET_PREFIX}TransactWriteItems` && req.method === 'POST') {
      const tables = (input?.TransactItems ?? []).flatMap((entry) =>
        ACTION_KINDS.map((kind) => entry?.[kind]?.TableName).filter((name) => typeof name === 'string'),
      );
      return gates.hold(tables, 'exclusive', () => transactWriteItems(input, res, internal, keySchemas));
    }
    gates.hold(
      tablesNamedIn(input),
      'shared',
      () =>
        new Promise((done) => {
          res.once('close', done);
          dynaliteHandler(replay(req, raw, { json: input }), res);
        }),
    );
  });
}

/** The tables a plain request reads or writes: its TableName, or a batch's RequestItems. */
function tablesNamedIn(input) {
  if (typeof input?.TableName === 'string') return [input.TableName];
  if (input?.RequestItems && typeof input.RequestItems === 'object') return Object.keys(input.RequestItems);
  return [];
}

/**
 * One readers-writer gate per table. A request takes the gates of all its tables, always in
 * name order, so two requests never wait on each other in a cycle.
 */
class TableGates {
  #gates = new Map();

  hold(tables, mode, task) {
    const names = [...new Set(tables)].sort();
    const acquire = (i) => {
      if (i === names.length) return task();
      let gate = this.#gates.get(names[i]);
      if (!gate) this.#gates.set(names[i], (gate = new Gate()));
      return new Promise((done) => gate[mode](() => Promise.resolve(acquire(i + 1)).finally(done)));
    };
    return acquire(0);
  }
}

/** A readers-writer lock served in arrival order. */
class Gate {
  #sharedHolders = 0;
  #exclusiveHeld = false;
  #queue = [];

  shared(task) {
    this.#enqueue({ exclusive: false, task });
  }

  exclusive(task) {
    this.#enqueue({ exclusive: true, task });
  }

  #enqueue(waiter) {
    this.#queue.push(waiter);
    this.#grant();
  }

  #grant() {
    while (this.#queue.length > 0 && !this.#exclusiveHeld) {
      const next = this.#queue[0];
      if (next.exclusive && this.#sharedHolders > 0) return;
      this.#queue.shift();
      if (next.exclusive) this.#exclusiveHeld = true;
      else this.#sharedHolders++;
      Promise.resolve()
        .then(next.task)
        .catch(() => undefined)
        .finally(() => {
          if (next.exclusive) this.#exclusiveHeld = false;
          else this.#sharedHolders--;
          this.#grant();
        });
    }
  }
}

function internalClient(server, token) {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  return (operation, input) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify(input);
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
            [INTERNAL_HEADER]: token,
          },
        },
        (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const answer = text ? JSON.parse(text) : {};
            if (res.statusCode < 300) return resolve(answer);
            reject(
              new DynamoError(
                String(answer.__type ?? 'UnknownError'),
                answer.message ?? answer.Message,
                res.statusCode,
              ),
            );
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}

class DynamoError extends Error {
  constructor(type, message, status) {
    super(message ?? type);
    this.type = type;
    this.status = status;
  }

  get code() {
    return this.type.split('#').pop();
  }
}

async function transactWriteItems(input, res, dynamo, keySchemas) {
  if (input === undefined) return send(res, 400, { __type: 'com.amazon.coral.service#SerializationException' });
  try {
    const actions = await planActions(input, dynamo, keySchemas);
    const reasons = await applyAll(actions, dynamo);
    if (reasons.some((reason) => reason.Code !== 'None')) {
      return send(res, 400, {
        __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
        Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
        CancellationReasons: reasons,
      });
    }
    send(res, 200, {});
  } catch (error) {
    if (error instanceof DynamoError) return send(res, error.status, { __type: error.type, message: error.message });
    send(res, 500, { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: String(error) });
  }
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomBytes(26).toString('hex').toUpperCase(),
  });
  res.end(text);
}

const validation = (message) => new DynamoError('com.amazon.coral.validate#ValidationException', message, 400);

/** Checks the request as DynamoDB does before touching any item, and finds each action's key. */
async function planActions(input, dynamo, keySchemas) {
  const items = input?.TransactItems;
  if (!Array.isArray(items) || items.length === 0) {
    throw validation(
      "1 validation error detected: Value null at 'transactItems' failed to satisfy constraint: Member must not be null",
    );
  }
  if (items.length > MAX_ACTIONS) {
    throw validation(
      `1 validation error detected: Value '[...]' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to ${MAX_ACTIONS}`,
    );
  }
  const seen = new Set();
  const actions = [];
  for (const entry of items) {
    const kinds = ACTION_KINDS.filter((kind) => entry?.[kind] !== undefined);
    if (kinds.length !== 1) {
      throw validation('TransactItems can only contain one of Check, Put, Update or Delete');
    }
    const [kind] = kinds;
    const params = entry[kind];
    if (kind === 'ConditionCheck' && !params.ConditionExpression) {
      throw validation('The ConditionExpression must be specified for a ConditionCheck');
    }
    const { names: keyNames } = await keySchemas(params.TableName);
    const source = kind === 'Put' ? params.Item : params.Key;
    const key = Object.fromEntries(keyNames.map((name) => [name, source?.[name]]));
    if (keyNames.some((name) => key[name] === undefined)) {
      throw validation('One or more parameter values were invalid: Missing the key in the item');
    }
    const identity = JSON.stringify([params.TableName, key]);
    if (seen.has(identity)) throw validation('Transaction request cannot include multiple operations on one item');
    seen.add(identity);
    actions.push({ kind, params, key });
  }
  return actions;
}

/**
 * Applies every action and returns one reason per action; when any failed, the applied ones are
 * undone. The actions touch distinct items, so one's outcome never changes another's condition
 * and they run side by side (the transaction holds the server, so no one else sees them). Each
 * write returns the item as it was (ReturnValues ALL_OLD): the snapshot to restore. A
 * condition check leaves nothing behind either way.
 */
async function applyAll(actions, dynamo) {
  const outcomes = await Promise.allSettled(actions.map((action) => applyOne(action, dynamo)));
  const applied = actions
    .map((action, i) => ({ action, outcome: outcomes[i] }))
    .filter(({ outcome }) => outcome.status === 'fulfilled' && outcome.value.reason.Code === 'None')
    .map(({ action, outcome }) => ({ action, before: outcome.value.before }));
  const crashed = outcomes.find((outcome) => outcome.status === 'rejected');
  const reasons = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.reason : undefined));
  const failed = crashed !== undefined || reasons.some((reason) => reason.Code !== 'None');
  await restore(
    applied.filter(({ action }) => failed || action.kind === 'ConditionCheck'),
    dynamo,
  );
  if (crashed) throw crashed.reason;
  return reasons;
}

const OPERATIONS = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'UpdateItem' };

async function applyOne({ kind, params, key }, dynamo) {
  const { ReturnValuesOnConditionCheckFailure: returnOld, ...request } = params;
  try {
    const answer = await dynamo(OPERATIONS[kind], {
      ...(kind === 'ConditionCheck' ? conditionOnly(request, key) : request),
      ReturnValues: 'ALL_OLD',
    });
    return { reason: { Code: 'None' }, before: answer.Attributes };
  } catch (error) {
    if (!(error instanceof DynamoError)) throw error;
    if (error.code === 'ConditionalCheckFailedException') {
      const reason = { Code: 'ConditionalCheckFailed', Message: CONDITION_FAILED };
      if (returnOld === 'ALL_OLD') {
        const { Item } = await dynamo('GetItem', { TableName: params.TableName, Key: key, ConsistentRead: true });
        if (Item) reason.Item = Item;
      }
      return { reason };
    }
    if (error.code === 'ValidationException') return { reason: { Code: 'ValidationError', Message: error.message } };
    throw error;
  }
}

/** A ConditionCheck as an update that changes nothing but must pass the same condition. */
function conditionOnly(params, key) {
  return {
    TableName: params.TableName,
    Key: key,
    ConditionExpression: params.ConditionExpression,
    UpdateExpression: 'REMOVE #localTransactionCheck',
    ExpressionAttributeNames: { ...params.ExpressionAttributeNames, '#localTransactionCheck': 'localTransactionCheck' },
    ...(params.ExpressionAttributeValues ? { ExpressionAttributeValues: params.ExpressionAttributeValues } : {}),
  };
}

function restore(applied, dynamo) {
  return Promise.all(
    applied.map(({ action, before }) => {
      const TableName = action.params.TableName;
      return before
        ? dynamo('PutItem', { TableName, Item: before })
        : dynamo('DeleteItem', { TableName, Key: action.key });
    }),
  );
}
