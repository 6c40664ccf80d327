/**
 * The local runtime's Lambda event source mapping for DynamoDB streams: what Lambda does
 * between a table's stream and a function, done in the gateway process (which plays Lambda
 * here) against the embedded DynamoDB's Streams API and the SQS stand-in.
 *
 * As Lambda does it: each shard is read in order, one batch at a time (so one partition key's
 * records reach the function in order); a batch is up to `batchSize` records, gathered for up
 * to the batching window; the function gets the DynamoDBStreamEvent shape. A batch that
 * succeeds is checkpointed past its last record. With ReportBatchItemFailures, an answer
 * naming failed records checkpoints before the lowest one and reading resumes there. A thrown
 * error (or a timeout) fails the batch: with bisect on error it is split in two and each half
 * tried on its own, down to single records; once a batch has failed more than
 * `maximumRetryAttempts` times in a row, a description of it (AWS's on-failure record, with
 * its shard and sequence numbers, not the records) goes to the on-failure SQS queue and reading
 * continues after it. Checkpoints persist in a file, so after a restart reading resumes after
 * the last checkpoint: records handled but not yet checkpointed are delivered again
 * (at least once, as in AWS), none is skipped.
 *
 * Retry counting, precisely: a bisected half starts with no failures (bisecting does not use
 * up retries, so a poison record is isolated whatever the retry limit); a partial failure that
 * moved the checkpoint counts as the first failure of the new batch; a failure at the same
 * first record counts one more.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { loadJsonState, saveJsonState } from './standins/aws-json-server.js';
import type { AwsJsonCall } from './aws-json-client.js';

/** One mapping's settings, named after Lambda's CreateEventSourceMapping parameters. */
export interface StreamMapping {
  /** The function's name: in its ARN (on-failure records) and its checkpoint file's name. */
  readonly functionName: string;
  /** The table whose enabled stream is read. */
  readonly tableName: string;
  readonly handler: StreamHandler;
  /** 1 to 10,000. @default 100 */
  readonly batchSize?: number;
  /** 0 to 300. @default 0 */
  readonly maximumBatchingWindowSeconds?: number;
  /** @default false */
  readonly bisectBatchOnFunctionError?: boolean;
  /** -1 (until the records expire) to 10,000. @default -1 */
  readonly maximumRetryAttempts?: number;
  /** Whether the function's `batchItemFailures` are honoured. @default false */
  readonly reportBatchItemFailures?: boolean;
  /**
   * With a tumbling window Lambda adds the shard id, the window and its state to the event.
   * Here the window is the batch's span of whole windows of this length, and `state` is what
   * the last invocation in the same window answered. 0 to 900. @default none
   */
  readonly tumblingWindowSeconds?: number;
  /** @default 'TRIM_HORIZON' */
  readonly startingPosition?: 'TRIM_HORIZON' | 'LATEST';
  /** The on-failure destination: records' batches that exhausted their retries are described there. */
  readonly onFailureQueueUrl?: string;
  /** The function's timeout: an invocation still running then counts as failed. @default 60 */
  readonly timeoutSeconds?: number;
}

export interface StreamEvent {
  Records: StreamRecord[];
  shardId?: string;
  eventSourceARN?: string;
  window?: { start: string; end: string };
  state?: Record<string, unknown>;
  isFinalInvokeForWindow?: boolean;
  isWindowTerminatedEarly?: boolean;
}

export type StreamRecord = DynamoDBRecord & { eventSourceARN: string };
export type StreamHandler = (event: StreamEvent) => unknown;

export interface StreamPollerDeps {
  /** DynamoDB Streams API calls (target `DynamoDBStreams_20120810`). */
  readonly streams: AwsJsonCall;
  /** SQS calls (target `AmazonSQS`), for the on-failure destination. */
  readonly sqs: AwsJsonCall;
  /** Where the checkpoints are kept (a JSON file, rewritten whole). */
  readonly checkpointFile: string;
  readonly region: string;
  readonly account: string;
  /** @default Date.now */
  readonly now?: () => number;
  /** @default console.warn */
  readonly warn?: (message: string, details: Record<string, unknown>) => void;
}

/** A mapping set up wrongly: the runtime refuses to start rather than deliver nothing. */
export class StreamMappingError extends Error {
  override readonly name = 'StreamMappingError';
}

/** What one round did, for tests and the running loop. */
export interface PollRound {
  readonly invocations: number;
  readonly checkpointed: number;
  readonly sentToFailureQueue: number;
  /** Some shard has more records ready than one batch took: poll again at once. */
  readonly moreReady: boolean;
}

interface WireRecord extends DynamoDBRecord {
  dynamodb: NonNullable<DynamoDBRecord['dynamodb']> & { SequenceNumber: string };
}

interface ShardState {
  readonly id: string;
  iterator?: string;
  /** Read and not yet checkpointed, in order. */
  buffer: WireRecord[];
  /** The last record handled (or skipped after its retries). */
  checkpoint?: string;
  /** Failed invocations of the batch at the head, in a row. */
  failures: number;
  /** Bisected sub-batch sizes still to try at the head, first first. */
  limits: number[];
  /** No invocation before this time (a retry's pause). */
  retryAtMs: number;
  /** When the head record was first seen (the batching window runs from there). */
  firstSeenMs?: number;
  /** A batch whose description could not be sent to the on-failure queue yet. */
  unsentFailure?: { batch: WireRecord[]; functionError: boolean };
  closed: boolean;
  window?: { start: number; state: Record<string, unknown> };
}

interface Checkpoints {
  streamArn?: string;
  shards: Record<string, string>;
}

const GET_RECORDS_LIMIT = 1000;
/** Lambda's invocation payload limit (6 MB): a batch is cut before it. */
const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;
const RETRY_PAUSE_MS = 100;
const MAX_RETRY_PAUSE_MS = 10_000;
/** AWS polls each shard about four times a second when it has nothing new. */
export const IDLE_POLL_MS = 250;

export class StreamPoller {
  readonly #mapping: Required<Omit<StreamMapping, 'onFailureQueueUrl' | 'tumblingWindowSeconds'>> &
    Pick<StreamMapping, 'onFailureQueueUrl' | 'tumblingWindowSeconds'>;
  readonly #deps: StreamPollerDeps;
  readonly #now: () => number;
  #streamArn?: string;
  #shards: ShardState[] = [];
  #round?: Promise<PollRound>;
  #stopping = false;
  #timer?: NodeJS.Timeout;

  constructor(mapping: StreamMapping, deps: StreamPollerDeps) {
    this.#mapping = {
      batchSize: 100,
      maximumBatchingWindowSeconds: 0,
      bisectBatchOnFunctionError: false,
      maximumRetryAttempts: -1,
      reportBatchItemFailures: false,
      startingPosition: 'TRIM_HORIZON',
      timeoutSeconds: 60,
      ...mapping,
    };
    checkMapping(this.#mapping);
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  get functionArn(): string {
    return `arn:aws:lambda:${this.#deps.region}:${this.#deps.account}:function:${this.#mapping.functionName}`;
  }

  /** One round: reads every shard and invokes the function at most once per shard. */
  pollOnce(): Promise<PollRound> {
    if (this.#round) return this.#round;
    const round = this.#pollRound().finally(() => {
      if (this.#round === round) this.#round = undefined;
    });
    this.#round = round;
    return round;
  }

  /** Polls until stopped: at once while records wait, else every IDLE_POLL_MS. */
  start(): void {
    const loop = async () => {
      if (this.#stopping) return;
      let delay = IDLE_POLL_MS;
      try {
        if ((await this.pollOnce()).moreReady) delay = 0;
      } catch (error) {
        this.#warn('stream poll failed; trying again', { error: String(error) });
      }
      if (!this.#stopping) this.#timer = setTimeout(() => void loop(), delay);
    };
    void loop();
  }

  /** No new batch starts; resolves once the one in flight has finished and been checkpointed. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    await this.#round?.catch(() => undefined);
  }

  async #pollRound(): Promise<PollRound> {
    if (!this.#streamArn) await this.#discover();
    const rounds = await Promise.all(this.#shards.map((shard) => this.#pollShard(shard)));
    return {
      invocations: rounds.reduce((sum, r) => sum + r.invocations, 0),
      checkpointed: rounds.reduce((sum, r) => sum + r.checkpointed, 0),
      sentToFailureQueue: rounds.reduce((sum, r) => sum + r.sentToFailureQueue, 0),
      moreReady: rounds.some((r) => r.moreReady),
    };
  }

  /** Finds the table's enabled stream and its shards, and the checkpoints kept for it. */
  async #discover(): Promise<void> {
    const { tableName } = this.#mapping;
    let arn: string | undefined;
    let start: string | undefined;
    do {
      const page = await this.#deps.streams<{
        Streams?: { StreamArn: string }[];
        LastEvaluatedStreamArn?: string;
      }>('ListStreams', { TableName: tableName, ...(start ? { ExclusiveStartStreamArn: start } : {}) });
      for (const stream of page.Streams ?? []) {
        const shards = await this.#describe(stream.StreamArn);
        if (shards) {
          arn = stream.StreamArn;
          const kept = loadJsonState<Checkpoints>(this.#deps.checkpointFile, () => ({ shards: {} }));
          // A new stream (the table or its stream made again) starts over.
          const checkpoints = kept.streamArn === arn ? kept.shards : {};
          this.#shards = shards.map((id) => ({
            id,
            buffer: [],
            checkpoint: checkpoints[id],
            failures: 0,
            limits: [],
            retryAtMs: 0,
            closed: false,
          }));
        }
      }
      start = page.LastEvaluatedStreamArn;
    } while (start && !arn);
    if (!arn) throw new StreamMappingError(`table ${tableName} has no enabled stream (its schema declares none?)`);
    this.#streamArn = arn;
  }

  /** The stream's shard ids when it is enabled. */
  async #describe(streamArn: string): Promise<string[] | undefined> {
    const ids: string[] = [];
    let start: string | undefined;
    do {
      const { StreamDescription: description } = await this.#deps.streams<{
        StreamDescription: { StreamStatus: string; Shards: { ShardId: string }[]; LastEvaluatedShardId?: string };
      }>('DescribeStream', { StreamArn: streamArn, ...(start ? { ExclusiveStartShardId: start } : {}) });
      if (description.StreamStatus !== 'ENABLED') return undefined;
      ids.push(...description.Shards.map((shard) => shard.ShardId));
      start = description.LastEvaluatedShardId;
    } while (start);
    return ids;
  }

  async #pollShard(shard: ShardState): Promise<PollRound> {
    const round = { invocations: 0, checkpointed: 0, sentToFailureQueue: 0, moreReady: false };
    if (this.#stopping) return round;
    if (shard.unsentFailure) {
      const { batch, functionError } = shard.unsentFailure;
      if (!(await this.#sendFailure(shard, batch, functionError))) return round;
      shard.unsentFailure = undefined;
      round.sentToFailureQueue++;
      round.checkpointed += this.#succeeded(shard, batch.length);
    }
    await this.#read(shard);
    const now = this.#now();
    if (shard.buffer.length === 0 || now < shard.retryAtMs) return round;
    shard.firstSeenMs ??= now;
    const size = this.#batchSizeAt(shard);
    const full = shard.buffer.length >= size || this.#payloadFull(shard, size);
    const waited = now - shard.firstSeenMs >= this.#mapping.maximumBatchingWindowSeconds * 1000;
    if (!full && !waited && shard.failures === 0 && shard.limits.length === 0) return round;
    const batch = this.#cut(shard, size);
    round.invocations++;
    const outcome = await this.#invoke(shard, batch);
    if (outcome.kind === 'ok') {
      round.checkpointed += this.#succeeded(shard, batch.length);
    } else if (outcome.kind === 'partial' && outcome.handled > 0) {
      // Lambda resumes at the lowest failed record: the rest of this batch is tried again.
      round.checkpointed += this.#skip(shard, outcome.handled);
      const rest = batch.slice(outcome.handled);
      shard.limits.splice(0, shard.limits.length > 0 ? 1 : 0, rest.length);
      this.#failed(shard, 1);
      if (shard.failures > this.#retryLimit()) await this.#giveUp(shard, rest, false, round);
    } else if (outcome.kind === 'error' && this.#mapping.bisectBatchOnFunctionError && batch.length > 1) {
      const first = Math.ceil(batch.length / 2);
      shard.limits.splice(0, shard.limits.length > 0 ? 1 : 0, first, batch.length - first);
      shard.failures = 0;
      shard.retryAtMs = this.#now();
    } else {
      this.#failed(shard, shard.failures + 1);
      if (shard.failures > this.#retryLimit()) await this.#giveUp(shard, batch, outcome.kind === 'error', round);
    }
    round.moreReady =
      shard.retryAtMs <= this.#now() && (shard.buffer.length >= this.#batchSizeAt(shard) || shard.limits.length > 0);
    return round;
  }

  #retryLimit(): number {
    const limit = this.#mapping.maximumRetryAttempts;
    return limit < 0 ? Number.POSITIVE_INFINITY : limit;
  }

  #batchSizeAt(shard: ShardState): number {
    return shard.limits[0] ?? this.#mapping.batchSize;
  }

  #payloadFull(shard: ShardState, size: number): boolean {
    return this.#cut(shard, size).length < Math.min(size, shard.buffer.length);
  }

  /**
   * The batch at the head: at most `size` records, within Lambda's payload limit, and with a
   * tumbling window within one window (at least one record).
   */
  #cut(shard: ShardState, size: number): WireRecord[] {
    const windowMs = (this.#mapping.tumblingWindowSeconds ?? 0) * 1000;
    const windowOf = (record: WireRecord) =>
      windowMs > 0 ? Math.floor(((record.dynamodb.ApproximateCreationDateTime ?? 0) * 1000) / windowMs) : 0;
    const head = shard.buffer[0];
    let bytes = 0;
    let count = 0;
    while (count < Math.min(size, shard.buffer.length)) {
      const record = shard.buffer[count]!;
      bytes += (record.dynamodb.SizeBytes ?? 0) + 512;
      if (count > 0 && (bytes > MAX_PAYLOAD_BYTES || windowOf(record) !== windowOf(head!))) break;
      count++;
    }
    return shard.buffer.slice(0, count);
  }

  /** Tops the shard's buffer up to a batch (a few GetRecords calls at most). */
  async #read(shard: ShardState): Promise<void> {
    const want = Math.max(this.#batchSizeAt(shard), this.#mapping.batchSize);
    while (!shard.closed && shard.buffer.length < want) {
      if (!shard.iterator) shard.iterator = await this.#iteratorFor(shard);
      let page: { Records?: WireRecord[]; NextShardIterator?: string };
      try {
        page = await this.#deps.streams('GetRecords', { ShardIterator: shard.iterator, Limit: GET_RECORDS_LIMIT });
      } catch (error) {
        if ((error as Error).name === 'ExpiredIteratorException') {
          shard.iterator = undefined;
          continue;
        }
        if ((error as Error).name === 'TrimmedDataAccessException') {
          this.#warn('stream records expired before they were handled; reading on from the oldest kept', {
            shardId: shard.id,
            after: shard.buffer.at(-1)?.dynamodb.SequenceNumber ?? shard.checkpoint,
          });
          shard.checkpoint = undefined;
          shard.iterator = await this.#iterator(shard, 'TRIM_HORIZON');
          continue;
        }
        throw error;
      }
      shard.iterator = page.NextShardIterator;
      if (!page.NextShardIterator) shard.closed = true;
      const records = page.Records ?? [];
      shard.buffer.push(...records);
      if (records.length < GET_RECORDS_LIMIT) break;
    }
  }

  /** Where reading goes on: after the last record read, else the checkpoint, else the start. */
  #iteratorFor(shard: ShardState): Promise<string> {
    const after = shard.buffer.at(-1)?.dynamodb.SequenceNumber ?? shard.checkpoint;
    return after
      ? this.#iterator(shard, 'AFTER_SEQUENCE_NUMBER', after)
      : this.#iterator(shard, this.#mapping.startingPosition);
  }

  async #iterator(shard: ShardState, type: string, sequenceNumber?: string): Promise<string> {
    const { ShardIterator } = await this.#deps.streams<{ ShardIterator: string }>('GetShardIterator', {
      StreamArn: this.#streamArn,
      ShardId: shard.id,
      ShardIteratorType: type,
      ...(sequenceNumber ? { SequenceNumber: sequenceNumber } : {}),
    });
    return ShardIterator;
  }

  async #invoke(
    shard: ShardState,
    batch: WireRecord[],
  ): Promise<{ kind: 'ok' } | { kind: 'partial'; handled: number } | { kind: 'error' }> {
    const event = this.#event(shard, batch);
    let answer: unknown;
    try {
      answer = await withTimeout(
        Promise.resolve().then(() => this.#mapping.handler(event)),
        this.#mapping.timeoutSeconds,
      );
    } catch (error) {
      this.#warn('stream function failed', { shardId: shard.id, error: String(error), records: batch.length });
      return { kind: 'error' };
    }
    if (this.#mapping.tumblingWindowSeconds !== undefined && shard.window) {
      const state = (answer as { state?: unknown } | undefined)?.state;
      shard.window.state = state && typeof state === 'object' ? (state as Record<string, unknown>) : {};
    }
    if (!this.#mapping.reportBatchItemFailures) return { kind: 'ok' };
    const failures = (answer as { batchItemFailures?: unknown } | null | undefined)?.batchItemFailures;
    if (failures === undefined || failures === null || (Array.isArray(failures) && failures.length === 0))
      return { kind: 'ok' };
    // As Lambda: anything but a list of this batch's sequence numbers fails the whole batch.
    if (!Array.isArray(failures)) return { kind: 'partial', handled: 0 };
    let lowest = batch.length;
    for (const failure of failures) {
      const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
      const at = typeof id === 'string' ? batch.findIndex((r) => r.dynamodb.SequenceNumber === id) : -1;
      if (at < 0) return { kind: 'partial', handled: 0 };
      lowest = Math.min(lowest, at);
    }
    return { kind: 'partial', handled: lowest };
  }

  #event(shard: ShardState, batch: WireRecord[]): StreamEvent {
    const Records = batch.map((record) => ({ ...record, eventSourceARN: this.#streamArn! }));
    const seconds = this.#mapping.tumblingWindowSeconds;
    if (seconds === undefined) return { Records };
    const size = Math.max(seconds, 1) * 1000;
    const first = (batch[0]!.dynamodb.ApproximateCreationDateTime ?? 0) * 1000;
    const last = (batch.at(-1)!.dynamodb.ApproximateCreationDateTime ?? 0) * 1000;
    const start = Math.floor(first / size) * size;
    if (shard.window?.start !== start) shard.window = { start, state: {} };
    return {
      Records,
      shardId: shard.id,
      eventSourceARN: this.#streamArn!,
      window: {
        start: new Date(start).toISOString(),
        end: new Date(Math.floor(last / size) * size + size).toISOString(),
      },
      state: shard.window.state,
      isFinalInvokeForWindow: false,
      isWindowTerminatedEarly: false,
    };
  }

  #succeeded(shard: ShardState, count: number): number {
    const done = this.#skip(shard, count);
    if (shard.limits.length > 0) shard.limits.shift();
    return done;
  }

  /** Checkpoints past the first `count` records of the buffer; returns `count`. */
  #skip(shard: ShardState, count: number): number {
    if (count === 0) return 0;
    shard.checkpoint = shard.buffer[count - 1]!.dynamodb.SequenceNumber;
    shard.buffer.splice(0, count);
    shard.failures = 0;
    shard.retryAtMs = 0;
    shard.firstSeenMs = shard.buffer.length > 0 ? this.#now() : undefined;
    this.#saveCheckpoints();
    return count;
  }

  #failed(shard: ShardState, failures: number): void {
    shard.failures = failures;
    shard.retryAtMs = this.#now() + Math.min(RETRY_PAUSE_MS * 2 ** (failures - 1), MAX_RETRY_PAUSE_MS);
  }

  /** The batch at the head exhausted its retries: it is described to the destination and skipped. */
  async #giveUp(
    shard: ShardState,
    batch: WireRecord[],
    functionError: boolean,
    round: { checkpointed: number; sentToFailureQueue: number },
  ): Promise<void> {
    if (!(await this.#sendFailure(shard, batch, functionError))) {
      shard.unsentFailure = { batch, functionError };
      return;
    }
    round.sentToFailureQueue++;
    round.checkpointed += this.#succeeded(shard, batch.length);
  }

  /** Whether the batch's on-failure record is sent (or there is no destination: it is dropped). */
  async #sendFailure(shard: ShardState, batch: WireRecord[], functionError: boolean): Promise<boolean> {
    const first = batch[0]!.dynamodb;
    const last = batch.at(-1)!.dynamodb;
    const arrival = (seconds: number | undefined) => new Date((seconds ?? 0) * 1000).toISOString();
    const description = {
      requestContext: {
        requestId: randomUUID(),
        functionArn: this.functionArn,
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: shard.failures,
      },
      responseContext: {
        statusCode: 200,
        executedVersion: '$LATEST',
        ...(functionError ? { functionError: 'Unhandled' } : {}),
      },
      version: '1.0',
      timestamp: new Date(this.#now()).toISOString(),
      DDBStreamBatchInfo: {
        shardId: shard.id,
        startSequenceNumber: first.SequenceNumber,
        endSequenceNumber: last.SequenceNumber,
        approximateArrivalOfFirstRecord: arrival(first.ApproximateCreationDateTime),
        approximateArrivalOfLastRecord: arrival(last.ApproximateCreationDateTime),
        batchSize: batch.length,
        streamArn: this.#streamArn,
      },
    };
    const queueUrl = this.#mapping.onFailureQueueUrl;
    if (!queueUrl) {
      this.#warn('stream records dropped after their retries (the mapping has no on-failure destination)', description);
      return true;
    }
    try {
      await this.#deps.sqs('SendMessage', { QueueUrl: queueUrl, MessageBody: JSON.stringify(description) });
      this.#warn('stream records sent to the on-failure destination after their retries', description);
      return true;
    } catch (error) {
      // Not skipped: the batch stays at the head until its description is sent.
      this.#warn('on-failure destination unreachable; the batch stays at the head', { error: String(error) });
      return false;
    }
  }

  #saveCheckpoints(): void {
    const shards: Record<string, string> = {};
    for (const shard of this.#shards) if (shard.checkpoint) shards[shard.id] = shard.checkpoint;
    saveJsonState(this.#deps.checkpointFile, { streamArn: this.#streamArn, shards } satisfies Checkpoints);
  }

  #warn(message: string, details: Record<string, unknown>): void {
    (this.#deps.warn ?? ((m: string, d: Record<string, unknown>) => console.warn(m, d)))(
      `${this.#mapping.functionName}: ${message}`,
      details,
    );
  }
}

function checkMapping(mapping: StreamMapping): void {
  const check = (name: keyof StreamMapping, value: number | undefined, min: number, max: number) => {
    if (value !== undefined && !(Number.isInteger(value) && value >= min && value <= max))
      throw new StreamMappingError(`${mapping.functionName}: ${name} must be an integer from ${min} to ${max}`);
  };
  check('batchSize', mapping.batchSize, 1, 10_000);
  check('maximumBatchingWindowSeconds', mapping.maximumBatchingWindowSeconds, 0, 300);
  check('maximumRetryAttempts', mapping.maximumRetryAttempts, -1, 10_000);
  check('tumblingWindowSeconds', mapping.tumblingWindowSeconds, 0, 900);
  check('timeoutSeconds', mapping.timeoutSeconds, 1, 900);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(mapping.functionName))
    throw new StreamMappingError(`function name ${JSON.stringify(mapping.functionName)} is not a Lambda function name`);
}

function withTimeout<T>(work: Promise<T>, seconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Task timed out after ${seconds} seconds`)), seconds * 1000);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
