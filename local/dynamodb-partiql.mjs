// PartiQL INSERT for the embedded DynamoDB. dynalite has no PartiQL; the usage ledger writes its
// entries as `INSERT` statements in BatchExecuteStatement calls (lambdas/store/partiql-insert.ts),
// because an INSERT is the one write that can never replace an item (IAM's
// `dynamodb:PartiQLInsert`) and a batch carries up to 25 of them in one call without a
// transaction's double charge. This layer runs exactly that subset, AWS's way:
//
//   INSERT INTO "table" VALUE {'name': ?, 'other': 'literal', 'count': 12, ...}
//
// in ExecuteStatement (one statement) and BatchExecuteStatement (1 to 25 write statements).
// Each INSERT becomes a PutItem conditioned on its key being new, handed in-process to the layers
// behind (throughput, streams, transactions, dynalite), so it is metered, throttled and streamed
// as the put it is, and costs no loopback HTTP exchange of its own. A batch's statements run side
// by side and answer one by one, in order: success, or an Error with AWS's codes
// (`DuplicateItem` for a key already there, `ProvisionedThroughputExceeded` for a throttled
// partition, ...). Any other statement (SELECT, UPDATE, DELETE, a nested literal) is refused
// whole with a ValidationException that says the embedded DynamoDB runs INSERT only.
import { EventEmitter } from 'node:events';
import { keySchemaReader } from './dynamodb-key-schemas.mjs';
import { readCall, replay } from './dynamodb-replayed-call.mjs';

const TARGET_PREFIX = 'DynamoDB_20120810.';
const ERROR_PREFIX = 'com.amazonaws.dynamodb.v20120810#';
const MAX_BATCH_STATEMENTS = 25;
const MAX_STATEMENT_LENGTH = 8192;
const DUPLICATE_MESSAGE = 'Duplicate primary key exists in table';

/** Wraps the request handler of `server` (dynalite with its other layers). Call before `listen`. */
export function addPartiQLInserts(server) {
  const [inner] = server.listeners('request');
  server.removeAllListeners('request');
  const dispatch = (req, operation, input) => dispatchInProcess(server, inner, req, operation, input);
  const keySchemas = keySchemaReader(async (table, req) => {
    const { status, answer } = await dispatch(req, 'DescribeTable', { TableName: table });
    if (status !== 200) throw new Error(`DescribeTable ${table}: ${status}`);
    return answer?.Table;
  });
  // A table that cannot be described has no schema: its put answers why (ResourceNotFound).
  const keysOf = (req, table) => keySchemas(table, req).catch(() => undefined);

  server.on('request', async (req, res) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const operation = target.startsWith(TARGET_PREFIX) ? target.slice(TARGET_PREFIX.length) : '';
    if (req.method !== 'POST' || !STATEMENT_OPERATIONS.has(operation)) return inner.call(server, req, res);
    const call = await readCall(req).catch(() => undefined);
    if (call === undefined) return res.destroy();
    try {
      const inserts = insertsIn(operation, call.json);
      const outcomes = await runInserts(req, inserts, dispatch, keysOf);
      if (operation === 'ExecuteStatement') {
        const [{ error }] = outcomes;
        return error ? send(res, error.status, errorBody(error.type, error.message)) : send(res, 200, '{}');
      }
      const Responses = outcomes.map(({ error }, i) => ({
        TableName: inserts[i].table,
        ...(error ? { Error: { Code: error.code, Message: error.message } } : {}),
      }));
      return send(res, 200, JSON.stringify({ Responses }));
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      return send(res, 400, errorBody('ValidationException', error.message));
    }
  });
}

const STATEMENT_OPERATIONS = new Set(['ExecuteStatement', 'BatchExecuteStatement']);

/** The INSERTs a call carries, `[{ table, item }]`; a Refusal when the call is not one this layer runs. */
function insertsIn(operation, input) {
  return operation === 'ExecuteStatement' ? [parsedStatement(input, 'statement')] : batchStatements(input);
}

/** The INSERTs a call's items carry, for the call log: `[{ table, item }]` (unparsable calls: none). */
export function insertsOf(operation, input) {
  if (!STATEMENT_OPERATIONS.has(operation)) return [];
  try {
    return insertsIn(operation, input);
  } catch {
    return []; // a refused call wrote nothing
  }
}

/** A call refused whole, with a ValidationException. */
class Refusal extends Error {}

function batchStatements(input) {
  const statements = input?.Statements;
  if (!Array.isArray(statements))
    throw new Refusal(
      "1 validation error detected: Value null at 'statements' failed to satisfy constraint: Member must not be null",
    );
  if (statements.length < 1 || statements.length > MAX_BATCH_STATEMENTS)
    throw new Refusal(
      `1 validation error detected: Value '${statements.length}' at 'statements' failed to satisfy constraint: ` +
        `Member must have length less than or equal to ${MAX_BATCH_STATEMENTS} and greater than or equal to 1`,
    );
  return statements.map((statement, i) => parsedStatement(statement, `statements.${i + 1}.member.statement`));
}

/** `{ Statement, Parameters }` → `{ table, item }`, or a Refusal naming what is wrong. */
function parsedStatement(request, field) {
  const text = request?.Statement;
  if (typeof text !== 'string')
    throw new Refusal(
      `1 validation error detected: Value null at '${field}' failed to satisfy constraint: Member must not be null`,
    );
  if (text.length < 1 || text.length > MAX_STATEMENT_LENGTH)
    throw new Refusal(
      `1 validation error detected: Value at '${field}' failed to satisfy constraint: ` +
        `Member must have length less than or equal to ${MAX_STATEMENT_LENGTH} and greater than or equal to 1`,
    );
  const parameters = request.Parameters ?? [];
  if (!Array.isArray(parameters)) throw new Refusal(`Parameters of '${field}' must be a list`);
  let shape = shapes.get(text);
  if (!shape) {
    if (shapes.size >= KEPT_SHAPES) shapes.clear();
    shapes.set(text, (shape = parseInsert(text)));
  }
  const { table, attributes, placeholders } = shape;
  if (placeholders !== parameters.length)
    throw new Refusal("Number of parameters in request and statement don't match.");
  const item = {};
  let next = 0;
  for (const { name, value } of attributes) {
    if (Object.hasOwn(item, name)) throw new Refusal(`Duplicate attribute name in item: ${name}`);
    item[name] = value === PLACEHOLDER ? parameters[next++] : value;
    if (!isAttributeValue(item[name])) throw new Refusal(`Invalid value for attribute ${name}`);
  }
  return { table, item };
}

const PLACEHOLDER = Symbol('?');
/**
 * Parsed statements by their text: a writer sends the same few statement texts over and over,
 * its values in the parameters. Bounded; a full cache starts again.
 */
const KEPT_SHAPES = 512;
const shapes = new Map();
const isAttributeValue = (value) =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 1;

/**
 * `INSERT INTO table VALUE { 'name' : value, ... }`, value being `?`, a 'string' or a number.
 * A scanner over the text once: linear in its length, whatever it holds.
 */
function parseInsert(text) {
  let at = 0;
  const space = () => {
    while (at < text.length && /\s/.test(text[at])) at++;
  };
  const unsupported = () =>
    new Refusal(
      'The embedded DynamoDB runs only PartiQL INSERT statements of the form ' +
        `INSERT INTO "table" VALUE {'name': ?, ...}; got: ${text.slice(0, 120)}`,
    );
  const keyword = (word) => {
    space();
    if (text.slice(at, at + word.length).toUpperCase() !== word || /\w/.test(text[at + word.length] ?? ''))
      throw unsupported();
    at += word.length;
  };
  const symbol = (char) => {
    space();
    if (text[at] !== char)
      throw new Refusal(`Statement wasn't well formed, can't be processed: expected '${char}' at ${at}`);
    at++;
  };
  const quoted = (quote) => {
    at++;
    let value = '';
    for (;;) {
      if (at >= text.length) throw new Refusal("Statement wasn't well formed, can't be processed: unterminated quote");
      const char = text[at++];
      if (char !== quote) value += char;
      else if (text[at] === quote) value += text[at++];
      else return value;
    }
  };
  keyword('INSERT');
  keyword('INTO');
  space();
  let table;
  if (text[at] === '"') table = quoted('"');
  else {
    const start = at;
    while (at < text.length && /[A-Za-z0-9_.-]/.test(text[at])) at++;
    table = text.slice(start, at);
  }
  if (!table) throw unsupported();
  keyword('VALUE');
  symbol('{');
  const attributes = [];
  let placeholders = 0;
  space();
  if (text[at] !== '}') {
    for (;;) {
      space();
      if (text[at] !== "'") throw unsupported();
      const name = quoted("'");
      symbol(':');
      space();
      let value;
      if (text[at] === '?') {
        at++;
        value = PLACEHOLDER;
        placeholders++;
      } else if (text[at] === "'") value = { S: quoted("'") };
      else {
        const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at, at + 64));
        if (!number) throw unsupported();
        at += number[0].length;
        value = { N: number[0] };
      }
      attributes.push({ name, value });
      space();
      if (text[at] === ',') {
        at++;
        continue;
      }
      break;
    }
  }
  symbol('}');
  space();
  if (at !== text.length) throw unsupported();
  return { table, attributes, placeholders };
}

/**
 * Runs the inserts side by side, each as a put conditioned on its key being new; one outcome
 * per insert, in order. Two statements of one batch on the same item refuse the batch, as AWS does.
 */
async function runInserts(req, inserts, dispatch, keysOf) {
  const schemas = await Promise.all(inserts.map(({ table }) => keysOf(req, table)));
  const seen = new Set();
  for (const [i, { table, item }] of inserts.entries()) {
    const keys = schemas[i];
    if (!keys?.hash) continue; // the put answers ResourceNotFound
    const key = `${table}\n${JSON.stringify(item[keys.hash])}\n${keys.range ? JSON.stringify(item[keys.range]) : ''}`;
    if (seen.has(key)) throw new Refusal('Provided list of item keys contains duplicates');
    seen.add(key);
  }
  return Promise.all(
    inserts.map(async ({ table, item }, i) => {
      const hash = schemas[i]?.hash;
      const condition = hash
        ? { ConditionExpression: 'attribute_not_exists(#key)', ExpressionAttributeNames: { '#key': hash } }
        : {};
      const { status, answer } = await dispatch(req, 'PutItem', { TableName: table, Item: item, ...condition });
      if (status === 200) return {};
      const type = String(answer?.__type ?? 'InternalServerError')
        .split('#')
        .pop();
      if (type === 'ConditionalCheckFailedException')
        return {
          error: { status: 400, type: 'DuplicateItemException', code: 'DuplicateItem', message: DUPLICATE_MESSAGE },
        };
      return {
        error: {
          status,
          type,
          code: STATEMENT_CODES[type] ?? (status >= 500 ? 'InternalServerError' : 'ValidationError'),
          message: String(answer?.message ?? answer?.Message ?? type),
        },
      };
    }),
  );
}

/** A put's error name → the code a batch statement carries (BatchStatementErrorCodeEnum). */
const STATEMENT_CODES = {
  ProvisionedThroughputExceededException: 'ProvisionedThroughputExceeded',
  ThrottlingException: 'ThrottlingError',
  RequestLimitExceeded: 'RequestLimitExceeded',
  ResourceNotFoundException: 'ResourceNotFound',
  ItemCollectionSizeLimitExceededException: 'ItemCollectionSizeLimitExceeded',
  TransactionConflictException: 'TransactionConflict',
  InternalServerError: 'InternalServerError',
  ValidationException: 'ValidationError',
  AccessDeniedException: 'AccessDenied',
};

/**
 * Hands a call to the layers behind without a socket: the call replayed from its JSON, and an
 * answer object with the parts of ServerResponse those layers and dynalite use. Resolves with
 * the status and the parsed answer.
 */
function dispatchInProcess(server, inner, req, operation, input) {
  const text = JSON.stringify(input);
  const headers = {
    ...req.headers,
    'x-amz-target': `${TARGET_PREFIX}${operation}`,
    'content-length': String(Buffer.byteLength(text)),
  };
  return new Promise((resolve) =>
    inner.call(server, replay(req, text, { headers, json: input }), new HeldAnswer(resolve)),
  );
}

/** What a layer behind writes as its answer, kept in memory. */
class HeldAnswer extends EventEmitter {
  statusCode = 200;
  headersSent = false;
  writableEnded = false;
  #headers = new Map();
  #chunks = [];
  #settle;

  constructor(settle) {
    super();
    this.#settle = settle;
  }

  setHeader(name, value) {
    this.#headers.set(String(name).toLowerCase(), value);
    return this;
  }

  getHeader(name) {
    return this.#headers.get(String(name).toLowerCase());
  }

  removeHeader(name) {
    this.#headers.delete(String(name).toLowerCase());
  }

  writeHead(status, headers) {
    this.statusCode = status;
    for (const [name, value] of Object.entries(headers ?? {})) this.setHeader(name, value);
    return this;
  }

  write(chunk) {
    if (chunk !== undefined && chunk !== null) this.#chunks.push(Buffer.from(chunk));
    return true;
  }

  end(chunk) {
    if (this.writableEnded) return this;
    if (typeof chunk !== 'function') this.write(chunk);
    this.headersSent = true;
    this.writableEnded = true;
    const text = Buffer.concat(this.#chunks).toString('utf8');
    let answer;
    try {
      answer = text ? JSON.parse(text) : {};
    } catch {
      answer = undefined;
    }
    this.#settle({ status: this.statusCode, answer });
    this.emit('finish');
    this.emit('close');
    return this;
  }

  destroy() {
    if (this.writableEnded) return this;
    this.writableEnded = true;
    this.#settle({ status: 500, answer: { __type: `${ERROR_PREFIX}InternalServerError`, message: 'call dropped' } });
    this.emit('close');
    return this;
  }
}

const errorBody = (type, message) => JSON.stringify({ __type: `${ERROR_PREFIX}${type}`, message });

function send(res, status, text) {
  res.writeHead(status, {
    'Content-Type': 'application/x-amz-json-1.0',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}
