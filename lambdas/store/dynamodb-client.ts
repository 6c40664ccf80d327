import { signedPost, SigV4Signer, type Credentials } from './signed-request.js';
import type {
  BatchExecuteStatementCommandInput,
  BatchExecuteStatementCommandOutput,
  BatchGetItemCommandInput,
  BatchGetItemCommandOutput,
  BatchWriteItemCommandInput,
  BatchWriteItemCommandOutput,
  DeleteItemCommandInput,
  DeleteItemCommandOutput,
  GetItemCommandInput,
  GetItemCommandOutput,
  PutItemCommandInput,
  PutItemCommandOutput,
  CancellationReason,
  QueryCommandInput,
  QueryCommandOutput,
  TransactWriteItemsCommandInput,
  TransactWriteItemsCommandOutput,
  UpdateItemCommandInput,
  UpdateItemCommandOutput,
} from '@aws-sdk/client-dynamodb';

/**
 * A small DynamoDB client for the hot path: the JSON protocol over keep-alive HTTP with
 * SigV4, and nothing else. The AWS SDK's client spends about 0.6 ms of CPU per call in its
 * middleware, endpoint rules and serialisers; this spends a small fraction of that, which
 * is most of the gateway's own CPU per request. Same wire API, same endpoint variables
 * (AWS_ENDPOINT_URL_DYNAMODB), credentials from the environment as Lambda provides them.
 */
export interface DynamoDb {
  getItem(input: GetItemCommandInput): Promise<GetItemCommandOutput>;
  putItem(input: PutItemCommandInput): Promise<PutItemCommandOutput>;
  updateItem(input: UpdateItemCommandInput): Promise<UpdateItemCommandOutput>;
  deleteItem(input: DeleteItemCommandInput): Promise<DeleteItemCommandOutput>;
  query(input: QueryCommandInput): Promise<QueryCommandOutput>;
  batchWriteItem(input: BatchWriteItemCommandInput): Promise<BatchWriteItemCommandOutput>;
  batchGetItem(input: BatchGetItemCommandInput): Promise<BatchGetItemCommandOutput>;
  /** PartiQL statements side by side; each answers on its own (its `Error`), in order. */
  batchExecuteStatement(input: BatchExecuteStatementCommandInput): Promise<BatchExecuteStatementCommandOutput>;
  /** All or nothing; a cancelled transaction rejects with a TransactionCanceledError. */
  transactWriteItems(input: TransactWriteItemsCommandInput): Promise<TransactWriteItemsCommandOutput>;
  /** Any other operation, by its wire name (for tooling: tables, descriptions). */
  request<T>(operation: string, input: unknown): Promise<T>;
}

export interface DynamoDbOptions {
  readonly region: string;
  readonly endpoint: string;
  /** Read for every call: Lambda may rotate them between invocations. */
  readonly credentials: () => Credentials;
  readonly maxAttempts?: number;
  readonly timeoutMs?: number;
}

/** A DynamoDB error, named like the SDK names it (e.g. ConditionalCheckFailedException). */
export class DynamoDbError extends Error {
  constructor(
    name: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = name;
  }
}

/**
 * A cancelled TransactWriteItems: nothing was written. One reason per action, in order
 * (`None` for the actions that were not at fault), so callers can tell which condition failed.
 */
export class TransactionCanceledError extends DynamoDbError {
  constructor(
    message: string,
    status: number,
    readonly reasons: readonly CancellationReason[],
  ) {
    super('TransactionCanceledException', message, status);
  }
}

/** Names DynamoDB throttles a call with: the partition, the table or the account is over its rate. */
const THROTTLING = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

/**
 * Whether DynamoDB refused a call (after the client's retries) for throughput: a throttled call,
 * or a transaction cancelled because an item's partition was throttled. Such a call may well
 * succeed a moment later; nothing about the request itself was wrong.
 */
export function isThrottling(error: unknown): boolean {
  if (error instanceof TransactionCanceledError)
    return error.reasons.some((reason) => reason.Code === 'ThrottlingError');
  return error instanceof DynamoDbError && THROTTLING.has(error.name);
}

/** The wait before retrying after `attempt` refused tries: full jitter, doubling from 50 ms. */
export const retryPauseMs = (attempt: number): number => Math.random() * 25 * 2 ** attempt;

const RETRYABLE = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'LimitExceededException',
]);

export function createDynamoDb(options: DynamoDbOptions): DynamoDb {
  const url = new URL(options.endpoint);
  const signer = new SigV4Signer(options.region, 'dynamodb');
  const maxAttempts = options.maxAttempts ?? 3;
  const call = async <T>(operation: string, input: unknown): Promise<T> => {
    const body = wireJson(input);
    for (let attempt = 1; ; attempt++) {
      try {
        return (await post(url, operation, body, signer, options.credentials(), options.timeoutMs ?? 5_000)) as T;
      } catch (error) {
        const retryable = !(error instanceof DynamoDbError) || RETRYABLE.has(error.name) || error.status >= 500;
        if (!retryable || attempt >= maxAttempts) throw error;
        await new Promise((done) => setTimeout(done, retryPauseMs(attempt)));
      }
    }
  };
  return {
    getItem: (input) => call('GetItem', input),
    putItem: (input) => call('PutItem', input),
    updateItem: (input) => call('UpdateItem', input),
    deleteItem: (input) => call('DeleteItem', input),
    query: (input) => call('Query', input),
    batchWriteItem: (input) => call('BatchWriteItem', input),
    batchGetItem: (input) => call('BatchGetItem', input),
    batchExecuteStatement: (input) => call('BatchExecuteStatement', input),
    transactWriteItems: (input) => call('TransactWriteItems', input),
    request: (operation, input) => call(operation, input),
  };
}

async function post(
  url: URL,
  operation: string,
  body: string,
  signer: SigV4Signer,
  credentials: Credentials,
  timeoutMs: number,
): Promise<unknown> {
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.0',
    host: url.host,
    'x-amz-target': `DynamoDB_20120810.${operation}`,
  };
  const { status, text } = await signedPost(url, headers, body, signer, credentials, timeoutMs, 'DynamoDB');
  let parsed: Record<string, unknown>;
  try {
    parsed = text ? (JSON.parse(text, hasBinary(text) ? binaryFromWire : undefined) as Record<string, unknown>) : {};
  } catch {
    throw new DynamoDbError('InternalServerError', `unreadable DynamoDB answer (${status})`, 500);
  }
  if (status < 300) return parsed;
  const type = String(parsed['__type'] ?? 'UnknownError')
    .split('#')
    .pop()!;
  throw errorOf(type, String(parsed['message'] ?? parsed['Message'] ?? type), status, parsed);
}

function errorOf(type: string, message: string, status: number, answer: Record<string, unknown>): DynamoDbError {
  if (type !== 'TransactionCanceledException') return new DynamoDbError(type, message, status);
  const reasons = Array.isArray(answer['CancellationReasons']) ? answer['CancellationReasons'] : [];
  return new TransactionCanceledError(message, status, reasons as CancellationReason[]);
}

/**
 * Binary attributes (`B`, `BS`) travel as base64 in DynamoDB's JSON protocol. JSON.stringify
 * would write a Buffer as `{"type":"Buffer","data":[...]}` (a map, which DynamoDB refuses), so
 * a request holding one is written again with its bytes as base64; the others, almost all, are
 * stringified once, with no replacer on the hot path.
 */
function wireJson(input: unknown): string {
  const body = JSON.stringify(input);
  if (!body.includes('"type":"Buffer"')) return body;
  return JSON.stringify(input, (key, value: unknown) => {
    if (key === 'B' && isSerializedBuffer(value)) return Buffer.from(value.data).toString('base64');
    if (key === 'BS' && Array.isArray(value))
      return value.map((item: unknown) =>
        isSerializedBuffer(item) ? Buffer.from(item.data).toString('base64') : item,
      );
    return value;
  });
}

const isSerializedBuffer = (value: unknown): value is { type: 'Buffer'; data: number[] } =>
  typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'Buffer';

/** Whether an answer holds binary attributes at all (a substring test before any reviver). */
const hasBinary = (text: string) => text.includes('"B":"') || text.includes('"BS":[');

/** In an answer, a string under `B` (or strings under `BS`) is always an attribute's bytes, in base64. */
function binaryFromWire(key: string, value: unknown): unknown {
  if (key === 'B' && typeof value === 'string') return Buffer.from(value, 'base64');
  if (key === 'BS' && Array.isArray(value) && value.every((item) => typeof item === 'string'))
    return value.map((item: string) => Buffer.from(item, 'base64'));
  return value;
}
