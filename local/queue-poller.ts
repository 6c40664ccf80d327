/**
 * The local runtime's Lambda event source mapping for an SQS queue: what Lambda does between a
 * queue and a function, done in the gateway process (which plays Lambda here) against the SQS
 * stand-in.
 *
 * As Lambda does it: up to `batchSize` messages are received at a time and handed to the
 * function as an SQSEvent; a message is deleted once the function has handled it. With
 * ReportBatchItemFailures, the messages the answer names are left in the queue (SQS delivers
 * them again after their visibility timeout, and its redrive policy, where modelled, ends their
 * tries); a thrown error, or an answer naming an id that is not in the batch, leaves the whole
 * batch. Nothing is kept here: the queue holds every message until it is deleted, so a restart
 * loses none.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { AwsJsonCall } from './aws-json-client.js';

/** One mapping's settings, named after Lambda's CreateEventSourceMapping parameters. */
export interface QueueMapping {
  /** The function's name, in warnings. */
  readonly functionName: string;
  readonly queueUrl: string;
  readonly handler: QueueHandler;
  /** 1 to 10 (a standard queue's receive limit; no batching window here). @default 10 */
  readonly batchSize?: number;
  /** Whether the function's `batchItemFailures` are honoured. @default false */
  readonly reportBatchItemFailures?: boolean;
}

export type QueueHandler = (event: SQSEvent) => unknown;

export interface QueuePollerDeps {
  /** SQS calls (target `AmazonSQS`). */
  readonly sqs: AwsJsonCall;
  readonly region: string;
  readonly account: string;
  /** @default console.warn */
  readonly warn?: (message: string, details: Record<string, unknown>) => void;
}

/** What one round did, for tests and the running loop. */
export interface QueueRound {
  readonly received: number;
  readonly deleted: number;
  /** A full batch came back: the queue may hold more, poll again at once. */
  readonly moreReady: boolean;
}

/** A mapping set up wrongly: the runtime refuses to start rather than deliver nothing. */
export class QueueMappingError extends Error {
  override readonly name = 'QueueMappingError';
}

interface ReceivedMessage {
  MessageId: string;
  ReceiptHandle: string;
  Body: string;
  MD5OfBody: string;
  Attributes?: Record<string, string>;
}

/**
 * Lambda long-polls a queue for up to 20 s; here a poll waits at most this long, so that a stop
 * (which lets the poll in flight finish) is never held up by an empty queue for longer.
 */
export const QUEUE_WAIT_SECONDS = 1;

export class QueuePoller {
  readonly #mapping: Required<QueueMapping>;
  readonly #deps: QueuePollerDeps;
  readonly #arn: string;
  readonly #waitSeconds: number;
  #round?: Promise<QueueRound>;
  /** Aborted by stop(): no receive starts after it, and one still waiting for messages ends at once. */
  readonly #stopped = new AbortController();
  #timer?: NodeJS.Timeout;

  constructor(mapping: QueueMapping, deps: QueuePollerDeps, waitSeconds = QUEUE_WAIT_SECONDS) {
    this.#mapping = { batchSize: 10, reportBatchItemFailures: false, ...mapping };
    const { batchSize } = this.#mapping;
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10)
      throw new QueueMappingError(`${mapping.functionName}: batchSize must be an integer from 1 to 10`);
    this.#deps = deps;
    this.#waitSeconds = waitSeconds;
    const name = mapping.queueUrl.replace(/\/+$/, '').split('/').pop() ?? '';
    this.#arn = `arn:aws:sqs:${deps.region}:${deps.account}:${name}`;
  }

  /** One round: one receive, at most one invocation, then the deletes. */
  pollOnce(): Promise<QueueRound> {
    if (this.#round) return this.#round;
    const round = this.#pollRound().finally(() => {
      if (this.#round === round) this.#round = undefined;
    });
    this.#round = round;
    return round;
  }

  /** Polls until stopped: at once after a full batch, else after each (short) long poll. */
  start(): void {
    const loop = async () => {
      if (this.#stopped.signal.aborted) return;
      let delay = 0;
      try {
        await this.pollOnce();
      } catch (error) {
        // The stand-in being away (it stops after the gateway on shutdown) must not spin.
        delay = 1000;
        this.#warn('queue poll failed; trying again', { error: String(error) });
      }
      if (!this.#stopped.signal.aborted) this.#timer = setTimeout(() => void loop(), delay);
    };
    void loop();
  }

  /**
   * No new receive starts, and a receive still waiting is given up (messages the queue handed
   * it meanwhile come back after their visibility timeout, as from any lost receive); resolves
   * once a batch in flight has been handled and deleted.
   */
  async stop(): Promise<void> {
    this.#stopped.abort();
    clearTimeout(this.#timer);
    await this.#round?.catch(() => undefined);
  }

  async #pollRound(): Promise<QueueRound> {
    const { queueUrl, batchSize } = this.#mapping;
    if (this.#stopped.signal.aborted) return { received: 0, deleted: 0, moreReady: false };
    let messages: ReceivedMessage[];
    try {
      ({ Messages: messages = [] } = await this.#deps.sqs<{ Messages?: ReceivedMessage[] }>(
        'ReceiveMessage',
        {
          QueueUrl: queueUrl,
          MaxNumberOfMessages: batchSize,
          WaitTimeSeconds: this.#waitSeconds,
          MessageSystemAttributeNames: ['All'],
        },
        this.#stopped.signal,
      ));
    } catch (error) {
      if (this.#stopped.signal.aborted) return { received: 0, deleted: 0, moreReady: false };
      throw error;
    }
    if (messages.length === 0) return { received: 0, deleted: 0, moreReady: false };
    const handled = await this.#invoke(messages);
    let deleted = 0;
    for (const message of handled) {
      try {
        await this.#deps.sqs('DeleteMessage', { QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle });
        deleted++;
      } catch (error) {
        // As with Lambda: an undeleted message is delivered again, and its function must bear that.
        this.#warn('a handled message could not be deleted; it will be delivered again', {
          messageId: message.MessageId,
          error: String(error),
        });
      }
    }
    return { received: messages.length, deleted, moreReady: messages.length === batchSize };
  }

  /** The messages the function handled: all, all but the failures it reported, or none. */
  async #invoke(messages: readonly ReceivedMessage[]): Promise<readonly ReceivedMessage[]> {
    let answer: unknown;
    try {
      answer = await this.#mapping.handler({ Records: messages.map((message) => this.#record(message)) });
    } catch (error) {
      this.#warn('the function failed; its messages will be delivered again', {
        messages: messages.length,
        error: String(error),
      });
      return [];
    }
    if (!this.#mapping.reportBatchItemFailures) return messages;
    const failures = reportedFailures(answer);
    const ids = new Set(messages.map((message) => message.MessageId));
    if (failures === undefined || failures.some((id) => !ids.has(id))) {
      this.#warn('the function answered batch item failures Lambda cannot read; the whole batch fails', {
        messages: messages.length,
      });
      return [];
    }
    const failed = new Set(failures);
    return messages.filter((message) => !failed.has(message.MessageId));
  }

  #record(message: ReceivedMessage): SQSRecord {
    const attributes = message.Attributes ?? {};
    return {
      messageId: message.MessageId,
      receiptHandle: message.ReceiptHandle,
      body: message.Body,
      attributes: {
        ApproximateReceiveCount: attributes['ApproximateReceiveCount'] ?? '1',
        SentTimestamp: attributes['SentTimestamp'] ?? '0',
        SenderId: attributes['SenderId'] ?? this.#deps.account,
        ApproximateFirstReceiveTimestamp: attributes['ApproximateFirstReceiveTimestamp'] ?? '0',
      },
      messageAttributes: {},
      md5OfBody: message.MD5OfBody,
      eventSource: 'aws:sqs',
      eventSourceARN: this.#arn,
      awsRegion: this.#deps.region,
    };
  }

  #warn(message: string, details: Record<string, unknown>): void {
    const warn = this.#deps.warn ?? ((text: string, more: Record<string, unknown>) => console.warn(text, more));
    warn(`${this.#mapping.functionName}: ${message}`, details);
  }
}

/**
 * The ids an answer reports as failed: none for an answer without `batchItemFailures` (Lambda
 * takes an empty or absent list as success), undefined for one Lambda cannot read.
 */
function reportedFailures(answer: unknown): string[] | undefined {
  if (answer === undefined || answer === null) return [];
  if (typeof answer !== 'object') return undefined;
  const list = (answer as { batchItemFailures?: unknown }).batchItemFailures;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) return undefined;
  const ids: string[] = [];
  for (const item of list as unknown[]) {
    const id =
      typeof item === 'object' && item !== null ? (item as { itemIdentifier?: unknown }).itemIdentifier : undefined;
    if (typeof id !== 'string' || id === '') return undefined;
    ids.push(id);
  }
  return ids;
}
