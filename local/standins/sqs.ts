/**
 * Amazon SQS stand-in for the local runtime: standard queues with the operations the usage
 * pipeline's failure paths and the budget webhooks use (CreateQueue, GetQueueUrl, SendMessage,
 * ReceiveMessage, DeleteMessage, ChangeMessageVisibility, GetQueueAttributes) over SQS's JSON protocol (`AmazonSQS.` targets, AWS JSON
 * 1.0), which the AWS SDK v3 client speaks; AWS_ENDPOINT_URL_SQS points clients here.
 *
 * Semantics kept from SQS: a received message is invisible for its visibility timeout and then
 * delivered again (at least once), with its receive count; only its latest receipt handle
 * deletes it; messages older than the queue's retention period are dropped. Not modelled: FIFO
 * queues, message attributes, batch operations, redrive policies between queues.
 *
 * State persists in `<dataDir>/sqs.json`, rewritten whole on every change (synchronously, so a
 * message is on disk before SendMessage answers); the bounds below keep that small.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  AwsJsonError,
  loadJsonState,
  requireString,
  saveJsonState,
  startAwsJsonServer,
  type AwsJsonInput,
  type AwsJsonServer,
} from './aws-json-server.js';
import type { StandInCredentials } from './signature-check.js';

export interface SqsStandInOptions {
  /** Folder for the state file; created if missing. */
  readonly dataDir: string;
  readonly port?: number;
  /** Clock in epoch ms (visibility, delays, retention); tests move it. Signatures keep real time. */
  readonly now?: () => number;
  /** What every call must be signed with. @default the process's AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY */
  readonly credentials?: StandInCredentials;
  /** Queues that exist from the start, as CreateQueue with default attributes would make them. */
  readonly queues?: readonly string[];
  readonly region?: string;
}

export interface SqsStandIn extends AwsJsonServer {
  /** The URL of queue `name` (whether or not it exists). */
  queueUrl(name: string): string;
}

interface StoredMessage {
  id: string;
  body: string;
  md5: string;
  sentMs: number;
  visibleAtMs: number;
  receiveCount: number;
  firstReceiveMs?: number;
  /** The latest receipt handle: only it deletes the message. */
  receipt?: string;
}

interface StoredQueue {
  name: string;
  createdMs: number;
  visibilityTimeoutSeconds: number;
  retentionSeconds: number;
  delaySeconds: number;
  messages: StoredMessage[];
}

interface State {
  version: 1;
  queues: Record<string, StoredQueue>;
}

const STATE_FILE = 'sqs.json';
export const LOCAL_SQS_ACCOUNT = '000000000000';
const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$/;
/** SQS's classic message size limit. */
export const MAX_MESSAGE_BYTES = 256 * 1024;
/** Per queue: the state file is rewritten on each change, so it must stay small. */
export const MAX_QUEUE_MESSAGES = 10_000;
export const MAX_QUEUE_BYTES = 64 * 1024 * 1024;
/** SQS's longest long poll. */
const MAX_WAIT_SECONDS = 20;
const DEFAULTS = { visibilityTimeoutSeconds: 30, retentionSeconds: 345_600, delaySeconds: 0 };
const ATTRIBUTE_BOUNDS: Record<string, readonly [keyof typeof DEFAULTS, number, number]> = {
  VisibilityTimeout: ['visibilityTimeoutSeconds', 0, 43_200],
  MessageRetentionPeriod: ['retentionSeconds', 60, 1_209_600],
  DelaySeconds: ['delaySeconds', 0, 900],
};

const invalid = (message: string) => new AwsJsonError('InvalidParameterValue', message);
const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

export async function startSqsStandIn(options: SqsStandInOptions): Promise<SqsStandIn> {
  const file = join(options.dataDir, STATE_FILE);
  const now = options.now ?? Date.now;
  const region = options.region ?? 'us-east-1';
  const state = loadJsonState<State>(file, () => ({ version: 1, queues: {} }));
  const save = () => saveJsonState(file, state);
  /** Long polls waiting for a message, by queue name. */
  const waiting = new Map<string, Set<() => void>>();
  let baseUrl = '';

  for (const name of options.queues ?? []) {
    if (!QUEUE_NAME.test(name)) throw new Error(`invalid queue name ${JSON.stringify(name)}`);
    state.queues[name] ??= { name, createdMs: now(), ...DEFAULTS, messages: [] };
  }
  save();

  const queueOf = (input: AwsJsonInput): StoredQueue => {
    const url = requireString(input, 'QueueUrl', 'MissingParameter');
    const parts = url.replace(/\/+$/, '').split('/');
    const [account, name] = parts.slice(-2);
    const queue = account === LOCAL_SQS_ACCOUNT && name ? state.queues[name] : undefined;
    if (!queue) throw new AwsJsonError('QueueDoesNotExist', 'The specified queue does not exist.');
    dropExpired(queue);
    return queue;
  };

  const dropExpired = (queue: StoredQueue) => {
    const cutoff = now() - queue.retentionSeconds * 1000;
    if (queue.messages.length > 0 && queue.messages[0]!.sentMs < cutoff) {
      queue.messages = queue.messages.filter((message) => message.sentMs >= cutoff);
      save();
    }
  };

  const receive = (queue: StoredQueue, max: number, visibilitySeconds: number, attributes: readonly string[]) => {
    const at = now();
    const taken: StoredMessage[] = [];
    for (const message of queue.messages) {
      if (taken.length === max) break;
      if (message.visibleAtMs > at) continue;
      message.receiveCount++;
      message.firstReceiveMs ??= at;
      message.visibleAtMs = at + visibilitySeconds * 1000;
      message.receipt = `${message.id}.${randomBytes(24).toString('base64url')}`;
      taken.push(message);
    }
    if (taken.length > 0) save();
    const wanted = (name: string) => attributes.includes('All') || attributes.includes(name);
    return taken.map((message) => {
      const system: Record<string, string> = {};
      if (wanted('ApproximateReceiveCount')) system['ApproximateReceiveCount'] = String(message.receiveCount);
      if (wanted('SentTimestamp')) system['SentTimestamp'] = String(message.sentMs);
      if (wanted('ApproximateFirstReceiveTimestamp'))
        system['ApproximateFirstReceiveTimestamp'] = String(message.firstReceiveMs);
      return {
        MessageId: message.id,
        ReceiptHandle: message.receipt,
        MD5OfBody: message.md5,
        Body: message.body,
        ...(Object.keys(system).length > 0 ? { Attributes: system } : {}),
      };
    });
  };

  /** The message `input`'s receipt handle names, by index (-1: none, or the handle is outdated). */
  const receivedAt = (queue: StoredQueue, input: AwsJsonInput): number => {
    const receipt = requireString(input, 'ReceiptHandle', 'MissingParameter');
    const id = receipt.slice(0, receipt.indexOf('.'));
    if (!/^[0-9a-f-]{36}\.[A-Za-z0-9_-]{32}$/.test(receipt))
      throw new AwsJsonError(
        'ReceiptHandleIsInvalid',
        `The input receipt handle "${receipt}" is not a valid receipt handle.`,
      );
    return queue.messages.findIndex((message) => message.id === id && message.receipt === receipt);
  };

  const server = await startAwsJsonServer({
    targetPrefix: 'AmazonSQS',
    jsonVersion: '1.0',
    port: options.port,
    credentials: options.credentials,
    operations: {
      CreateQueue: (input) => {
        const name = requireString(input, 'QueueName', 'MissingParameter');
        if (!QUEUE_NAME.test(name))
          throw invalid('Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length');
        const settings = { ...DEFAULTS, ...queueAttributes(input['Attributes']) };
        const existing = state.queues[name];
        if (existing) {
          const same = (Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]).every((k) => existing[k] === settings[k]);
          if (!same)
            throw new AwsJsonError(
              'QueueAlreadyExists',
              'A queue already exists with the same name and a different value for attribute(s)',
            );
        } else {
          state.queues[name] = { name, createdMs: now(), ...settings, messages: [] };
          save();
        }
        return { QueueUrl: queueUrl(name) };
      },
      GetQueueUrl: (input) => {
        const name = requireString(input, 'QueueName', 'MissingParameter');
        if (!state.queues[name]) throw new AwsJsonError('QueueDoesNotExist', 'The specified queue does not exist.');
        return { QueueUrl: queueUrl(name) };
      },
      SendMessage: (input) => {
        const queue = queueOf(input);
        const body = input['MessageBody'];
        if (typeof body !== 'string' || body === '')
          throw new AwsJsonError('MissingParameter', 'The request must contain the parameter MessageBody.');
        const bytes = Buffer.byteLength(body, 'utf8');
        if (bytes > MAX_MESSAGE_BYTES)
          throw invalid(
            `One or more parameters are invalid. Reason: Message must be shorter than ${MAX_MESSAGE_BYTES} bytes.`,
          );
        if (input['MessageAttributes'] !== undefined || input['MessageSystemAttributes'] !== undefined)
          throw invalid('Message attributes are not supported by the local SQS stand-in');
        const delay = integerIn(input, 'DelaySeconds', 0, 900) ?? queue.delaySeconds;
        const held = queue.messages.reduce((sum, message) => sum + Buffer.byteLength(message.body, 'utf8'), 0);
        if (queue.messages.length >= MAX_QUEUE_MESSAGES || held + bytes > MAX_QUEUE_BYTES)
          throw new AwsJsonError(
            'OverLimit',
            `the local queue ${queue.name} holds its most (${MAX_QUEUE_MESSAGES} messages, ${MAX_QUEUE_BYTES} bytes): receive and delete some`,
          );
        const message: StoredMessage = {
          id: randomUUID(),
          body,
          md5: md5(body),
          sentMs: now(),
          visibleAtMs: now() + delay * 1000,
          receiveCount: 0,
        };
        queue.messages.push(message);
        save();
        for (const wake of waiting.get(queue.name) ?? []) wake();
        return { MessageId: message.id, MD5OfMessageBody: message.md5 };
      },
      ReceiveMessage: async (input) => {
        const queue = queueOf(input);
        const max = integerIn(input, 'MaxNumberOfMessages', 1, 10) ?? 1;
        const visibility = integerIn(input, 'VisibilityTimeout', 0, 43_200) ?? queue.visibilityTimeoutSeconds;
        const waitSeconds = integerIn(input, 'WaitTimeSeconds', 0, MAX_WAIT_SECONDS) ?? 0;
        const attributes = [
          ...stringList(input, 'AttributeNames'),
          ...stringList(input, 'MessageSystemAttributeNames'),
        ];
        let messages = receive(queue, max, visibility, attributes);
        if (messages.length === 0 && waitSeconds > 0) {
          await new Promise<void>((done) => {
            let waiters = waiting.get(queue.name);
            if (!waiters) waiting.set(queue.name, (waiters = new Set()));
            const wake = () => {
              clearTimeout(timer);
              waiters.delete(wake);
              done();
            };
            const timer = setTimeout(wake, waitSeconds * 1000);
            waiters.add(wake);
          });
          messages = receive(queue, max, visibility, attributes);
        }
        return messages.length > 0 ? { Messages: messages } : {};
      },
      DeleteMessage: (input) => {
        const queue = queueOf(input);
        const at = receivedAt(queue, input);
        // As in SQS: an outdated handle (the message was received again since) deletes nothing.
        if (at >= 0) {
          queue.messages.splice(at, 1);
          save();
        }
        return {};
      },
      ChangeMessageVisibility: (input) => {
        const queue = queueOf(input);
        const at = receivedAt(queue, input);
        const seconds = integerIn(input, 'VisibilityTimeout', 0, 43_200);
        if (seconds === undefined)
          throw new AwsJsonError('MissingParameter', 'The request must contain the parameter VisibilityTimeout.');
        const message = queue.messages[at];
        if (!message || message.visibleAtMs <= now())
          throw new AwsJsonError('MessageNotInflight', 'The message referred to is not in flight.');
        message.visibleAtMs = now() + seconds * 1000;
        save();
        return {};
      },
      GetQueueAttributes: (input) => {
        const queue = queueOf(input);
        const names = stringList(input, 'AttributeNames');
        const at = now();
        const all: Record<string, string> = {
          ApproximateNumberOfMessages: String(queue.messages.filter((m) => m.visibleAtMs <= at).length),
          ApproximateNumberOfMessagesNotVisible: String(
            queue.messages.filter((m) => m.visibleAtMs > at && m.receiveCount > 0).length,
          ),
          ApproximateNumberOfMessagesDelayed: String(
            queue.messages.filter((m) => m.visibleAtMs > at && m.receiveCount === 0).length,
          ),
          CreatedTimestamp: String(Math.floor(queue.createdMs / 1000)),
          DelaySeconds: String(queue.delaySeconds),
          MaximumMessageSize: String(MAX_MESSAGE_BYTES),
          MessageRetentionPeriod: String(queue.retentionSeconds),
          QueueArn: `arn:aws:sqs:${region}:${LOCAL_SQS_ACCOUNT}:${queue.name}`,
          ReceiveMessageWaitTimeSeconds: '0',
          VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
        };
        const chosen = names.includes('All')
          ? all
          : Object.fromEntries(names.flatMap((n) => (n in all ? [[n, all[n]!]] : [])));
        return Object.keys(chosen).length > 0 ? { Attributes: chosen } : {};
      },
    },
  });
  baseUrl = server.url;
  function queueUrl(name: string): string {
    return `${baseUrl}/${LOCAL_SQS_ACCOUNT}/${name}`;
  }
  return {
    url: server.url,
    queueUrl,
    close: async () => {
      for (const waiters of waiting.values()) for (const wake of waiters) wake();
      await server.close();
    },
  };
}

function queueAttributes(value: unknown): Partial<typeof DEFAULTS> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('Attributes must be a map of names to values');
  const settings: Partial<typeof DEFAULTS> = {};
  for (const [name, raw] of Object.entries(value as Record<string, unknown>)) {
    const bounds = ATTRIBUTE_BOUNDS[name];
    if (!bounds) throw new AwsJsonError('InvalidAttributeName', `Unknown or unsupported attribute ${name}`);
    const [field, min, max] = bounds;
    const number = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(number >= min && number <= max))
      throw new AwsJsonError('InvalidAttributeValue', `Invalid value for the parameter ${name}: from ${min} to ${max}`);
    settings[field] = number;
  }
  return settings;
}

function integerIn(input: AwsJsonInput, field: string, min: number, max: number): number | undefined {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max)
    throw invalid(
      `Value ${JSON.stringify(value)} for parameter ${field} is invalid. Reason: must be between ${min} and ${max}.`,
    );
  return value as number;
}

function stringList(input: AwsJsonInput, field: string): string[] {
  const value = input[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw invalid(`${field} must be a list of strings`);
  return value as string[];
}
