import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  EventSourceMapping,
  FilterCriteria,
  FilterRule,
  StartingPosition,
  type IEventSourceDlq,
} from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '../../lambdas/config/environment.js';
import { CHECKPOINT_PK } from '../../lambdas/store/usage-checkpoints.js';
import { LEDGER_SHARD_KEYS } from './endpoint-access.js';
import { EndpointFunction, type FunctionSource } from './endpoint-function.js';

/** The pipeline's two functions: not API routes, so their specs live here. */
export const USAGE_PIPELINE_FUNCTIONS = {
  aggregator: { entry: 'lambdas/usage/usage-aggregator.ts', memoryMb: 512, timeoutSeconds: 120 },
  redrive: { entry: 'lambdas/usage/usage-redrive.ts', memoryMb: 256, timeoutSeconds: 60 },
} as const satisfies Record<string, FunctionSource>;

/** Item partitions the aggregator may touch, as IAM `dynamodb:LeadingKeys` patterns. */
export const TOTALS_KEYS = ['ACCOUNT#*#TOTALS', CHECKPOINT_PK] as const;

/** The aggregator's event source mapping, exported for the tests and the docs' figures. */
export const AGGREGATOR_MAPPING = {
  /**
   * Records per invocation, at most (Lambda also stops a batch at its 6 MB payload, about 5,000
   * ledger inserts). A batch writes each tenant's totals once per model, route and key it holds,
   * so at a busy tenant's rate few large batches keep its totals partition cool: one tenant at
   * 10,000 requests a second over 60 keys writes about 480 WCU/s there (`npm run bench -- scale`),
   * where one-second batches of 1,000 would write 2,400.
   */
  batchSize: 10_000,
  /**
   * How long a batch that is not full is gathered: how far totals (and reports) may trail the
   * ledger when traffic is light. The local runtime gathers for 1 s (local/stream-mappings.ts).
   */
  maxBatchingWindow: Duration.seconds(5),
  /**
   * Lambda names the shard in the event (`shardId`) only for a mapping with a tumbling window;
   * the aggregator keeps no window state, the window only makes the shard id arrive.
   */
  tumblingWindow: Duration.minutes(1),
  /** Tries of a failing batch (halved each time, reported failures resumed) before the on-failure queue. */
  retryAttempts: 10,
  /** One batch per shard at a time: what the checkpoint's ordering assumes. */
  parallelizationFactor: 1,
} as const;

/** How many times SQS hands a retry message to the redrive before it goes to the dead-letter queue. */
export const REDRIVE_MAX_RECEIVES = 10;
/** The retry queue's oldest message at this age means the ledger has been refusing writes. */
export const RETRY_AGE_ALARM_SECONDS = 900;
/** The aggregator this far behind its stream means totals are stale (a shard stuck on a failing batch). */
export const ITERATOR_AGE_ALARM_MS = 300_000;
const RETENTION = Duration.days(14);
const PERIOD = Duration.minutes(5);

export interface UsagePipelineProps {
  /** The usage table, with its stream enabled (NEW_IMAGE). */
  readonly table: ITable;
  readonly encryptionKey: IKey;
  readonly logRetention?: RetentionDays;
  /** Environment every function of the stack gets. @default {} */
  readonly environment?: Record<string, string>;
}

/**
 * The usage pipeline off the request path (docs/deployment.md, "Usage pipeline"):
 *
 * - the retry queue, where a request-path function sends ledger entries DynamoDB did not take,
 *   and the redrive function that inserts them again (PartiQL INSERTs: a duplicate writes
 *   nothing), with a dead-letter queue for what still fails;
 * - the aggregator, fed by the usage table's stream, which adds each new ledger entry once to
 *   the day and hour totals, and the queue its mapping sends batches it gives up on to.
 *
 * Queues are encrypted with the stack key and refuse plain HTTP. Each function's role holds
 * exactly its own actions, scoped to its item partitions with `dynamodb:LeadingKeys`.
 */
export class UsagePipeline extends Construct {
  readonly retryQueue: Queue;
  readonly retryDeadLetters: Queue;
  /** Where the aggregator's mapping sends the description of a batch it gave up on. */
  readonly aggregatorFailures: Queue;
  readonly aggregator: EndpointFunction;
  readonly redrive: EndpointFunction;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: UsagePipelineProps) {
    super(scope, id);
    const streamArn = props.table.tableStreamArn;
    if (!streamArn) throw new Error('the usage table needs its stream enabled for the usage pipeline');
    const { encryptionKey, table } = props;
    const region = Stack.of(this).region;
    const queue = (name: string, deadLetters?: Queue, visibilityTimeout?: Duration) =>
      new Queue(this, name, {
        encryption: QueueEncryption.KMS,
        encryptionMasterKey: encryptionKey,
        enforceSSL: true,
        retentionPeriod: RETENTION,
        visibilityTimeout,
        ...(deadLetters ? { deadLetterQueue: { queue: deadLetters, maxReceiveCount: REDRIVE_MAX_RECEIVES } } : {}),
      });
    this.retryDeadLetters = queue('RetryDeadLetters');
    // Six times the redrive's timeout, as Lambda advises for a queue it reads.
    this.retryQueue = queue(
      'RetryQueue',
      this.retryDeadLetters,
      Duration.seconds(6 * USAGE_PIPELINE_FUNCTIONS.redrive.timeoutSeconds),
    );
    this.aggregatorFailures = queue('AggregatorFailures');
    Validations.of(this.aggregatorFailures.node.defaultChild!).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is itself a dead-letter destination: the usage aggregator's stream mapping sends it the " +
        'description of each batch it gave up on (shard and sequence range). Nothing consumes it automatically: ' +
        'its alarm calls the operator (docs/deployment.md, usage pipeline). A queue behind it would hide them.',
    });

    const viaDynamoDb = { StringEquals: { 'kms:ViaService': `dynamodb.${region}.amazonaws.com` } };
    const viaSqs = { StringEquals: { 'kms:ViaService': `sqs.${region}.amazonaws.com` } };
    const keyThroughDynamoDb = new PolicyStatement({
      actions: ['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'],
      resources: [encryptionKey.keyArn],
      conditions: viaDynamoDb,
    });
    const environment = { ...props.environment, [ENV.usageTable]: table.tableName };

    this.aggregator = new EndpointFunction(this, 'Aggregator', {
      route: USAGE_PIPELINE_FUNCTIONS.aggregator,
      description: 'AI gateway usage aggregator: ledger entries from the stream into day and hour totals',
      logRetention: props.logRetention,
      environment,
      statements: [
        // Totals and checkpoints only: it can neither write nor read a ledger entry.
        new PolicyStatement({
          actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
          resources: [table.tableArn],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...TOTALS_KEYS] } },
        }),
        new PolicyStatement({
          actions: [
            'dynamodb:DescribeStream',
            'dynamodb:GetRecords',
            'dynamodb:GetShardIterator',
            'dynamodb:ListStreams',
          ],
          resources: [streamArn],
        }),
        keyThroughDynamoDb,
        // The mapping sends a failed batch's description to its on-failure queue with this role.
        new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.aggregatorFailures.queueArn] }),
        new PolicyStatement({
          actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
          resources: [encryptionKey.keyArn],
          conditions: viaSqs,
        }),
      ],
    });
    new EventSourceMapping(this, 'AggregatorStream', {
      target: this.aggregator.fn,
      eventSourceArn: streamArn,
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: AGGREGATOR_MAPPING.batchSize,
      maxBatchingWindow: AGGREGATOR_MAPPING.maxBatchingWindow,
      tumblingWindow: AGGREGATOR_MAPPING.tumblingWindow,
      bisectBatchOnError: true,
      reportBatchItemFailures: true,
      retryAttempts: AGGREGATOR_MAPPING.retryAttempts,
      parallelizationFactor: AGGREGATOR_MAPPING.parallelizationFactor,
      onFailure: queueDestination(this.aggregatorFailures),
      // Only new ledger entries invoke it: its own totals and checkpoint writes never do.
      filters: [
        FilterCriteria.filter({
          eventName: FilterRule.isEqual('INSERT'),
          dynamodb: { NewImage: { type: { S: FilterRule.isEqual('ledger') } } },
        }),
      ],
    });

    this.redrive = new EndpointFunction(this, 'Redrive', {
      route: USAGE_PIPELINE_FUNCTIONS.redrive,
      description: 'AI gateway usage redrive: ledger entries from the retry queue into the ledger',
      logRetention: props.logRetention,
      environment,
      statements: [
        // Ledger shards only, and only PartiQL INSERT: it can add entries, never change or remove one.
        new PolicyStatement({
          actions: ['dynamodb:PartiQLInsert'],
          resources: [table.tableArn],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [LEDGER_SHARD_KEYS] } },
        }),
        keyThroughDynamoDb,
        new PolicyStatement({
          actions: ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage'],
          resources: [this.retryQueue.queueArn],
        }),
        new PolicyStatement({ actions: ['kms:Decrypt'], resources: [encryptionKey.keyArn], conditions: viaSqs }),
      ],
    });
    new EventSourceMapping(this, 'RedriveQueue', {
      target: this.redrive.fn,
      eventSourceArn: this.retryQueue.queueArn,
      batchSize: 10,
      reportBatchItemFailures: true,
    });

    this.alarm(
      'RetryQueueAgeAlarm',
      this.retryQueue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' }),
      RETRY_AGE_ALARM_SECONDS,
      `usage retry queue: an entry waiting ${RETRY_AGE_ALARM_SECONDS / 60} minutes for the ledger`,
    );
    this.alarm(
      'RetryDeadLettersAlarm',
      this.retryDeadLetters.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
      1,
      'usage entries the redrive could not write (retry dead-letter queue)',
    );
    this.alarm(
      'AggregatorFailuresAlarm',
      this.aggregatorFailures.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
      1,
      'stream batches the usage aggregator gave up on: totals miss their entries',
    );
    this.alarm(
      'AggregatorIteratorAgeAlarm',
      this.aggregator.fn.metric('IteratorAge', { period: PERIOD, statistic: 'Maximum' }),
      ITERATOR_AGE_ALARM_MS,
      `usage totals more than ${ITERATOR_AGE_ALARM_MS / 60_000} minutes behind the ledger`,
    );
  }

  private alarm(id: string, metric: IMetric, threshold: number, description: string): void {
    this.alarms.push(
      new Alarm(this, id, {
        metric,
        threshold,
        alarmDescription: `AI gateway: ${description}`,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }
}

/**
 * An on-failure destination that only names the queue: CDK's SqsDlq would also grant the role
 * SendMessage with wildcard KMS actions (kms:ReEncrypt*, kms:GenerateDataKey*); the role above
 * holds exactly what the mapping uses.
 */
function queueDestination(queue: Queue): IEventSourceDlq {
  return { bind: () => ({ destination: queue.queueArn }) };
}
