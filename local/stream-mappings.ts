/**
 * The local runtime's event source mappings from DynamoDB streams to functions: what the stack
 * declares with Lambda event source mappings, run in the gateway process by
 * local/stream-poller.ts against the embedded DynamoDB's Streams API, with on-failure
 * destinations in the SQS stand-in.
 *
 * A mapping names its table (whose schema must declare a stream), a loader for its function's
 * handler module (a literal import, so the local runtime's bundle includes it) and Lambda's
 * mapping settings.
 */
import { join } from 'node:path';
import type { Credentials } from '../lambdas/store/signed-request.js';
import type { TableName } from '../lambdas/store/table-schema.js';
import { awsJsonClient } from './aws-json-client.js';
import { LOCAL_REGION } from './runtime-config.js';
import { LOCAL_SQS_ACCOUNT } from './standins/sqs.js';
import { StreamMappingError, StreamPoller, type StreamHandler, type StreamMapping } from './stream-poller.js';

export interface LocalStreamMapping extends Omit<StreamMapping, 'tableName' | 'handler' | 'onFailureQueueUrl'> {
  readonly table: TableName;
  readonly load: () => Promise<{ handler: unknown }>;
  /** The on-failure destination: a queue of the SQS stand-in, made at start if missing. */
  readonly onFailureQueue?: string;
}

/**
 * The usage aggregator with the deployed mapping's settings but its batching window (AGGREGATOR_MAPPING in
 * lib/constructs/usage-pipeline.ts, which this file does not import: it would bring the CDK into
 * the local runtime). The deployed mapping's filter (ledger inserts only) is not applied here:
 * the aggregator skips every other record itself, so it only costs an invocation.
 */
/**
 * The deployed mapping gathers a batch for 5 s, which at scale keeps a busy tenant's totals
 * partition cool; one machine's traffic never needs that, and here reports catch up within
 * about a second.
 */
export const LOCAL_AGGREGATOR_BATCHING_WINDOW_SECONDS = 1;

export const LOCAL_STREAM_MAPPINGS: readonly LocalStreamMapping[] = [
  {
    table: 'usage',
    functionName: 'gateway-usage-aggregator',
    load: () => import('../lambdas/usage/usage-aggregator.js'),
    batchSize: 10_000,
    maximumBatchingWindowSeconds: LOCAL_AGGREGATOR_BATCHING_WINDOW_SECONDS,
    tumblingWindowSeconds: 60,
    bisectBatchOnFunctionError: true,
    maximumRetryAttempts: 10,
    reportBatchItemFailures: true,
    timeoutSeconds: 120,
    onFailureQueue: 'gateway-usage-aggregator-failures',
  },
];

export interface LocalStreamPollersOptions {
  readonly dataDir: string;
  readonly mappings: readonly LocalStreamMapping[];
  readonly tableNames: Readonly<Record<TableName, string>>;
  readonly streamsEndpoint: string;
  readonly sqsEndpoint: string;
  readonly credentials: Credentials;
}

export interface LocalStreamPollers {
  /** Lets each mapping finish the batch in flight, then stops it. */
  stop(): Promise<void>;
}

export async function startLocalStreamPollers(options: LocalStreamPollersOptions): Promise<LocalStreamPollers> {
  const credentials = () => options.credentials;
  const streams = awsJsonClient({
    endpoint: options.streamsEndpoint,
    region: LOCAL_REGION,
    service: 'dynamodb',
    targetPrefix: 'DynamoDBStreams_20120810',
    credentials,
  });
  const sqs = awsJsonClient({
    endpoint: options.sqsEndpoint,
    region: LOCAL_REGION,
    service: 'sqs',
    targetPrefix: 'AmazonSQS',
    credentials,
  });
  const pollers: StreamPoller[] = [];
  for (const { table, load, onFailureQueue, ...settings } of options.mappings) {
    const onFailureQueueUrl = onFailureQueue
      ? (await sqs<{ QueueUrl: string }>('CreateQueue', { QueueName: onFailureQueue })).QueueUrl
      : undefined;
    const handler: StreamHandler = async (event) => {
      const loaded = (await load()).handler;
      if (typeof loaded !== 'function')
        throw new StreamMappingError(`${settings.functionName}: the handler module exports no handler function`);
      return (loaded as StreamHandler)(event);
    };
    const poller = new StreamPoller(
      { ...settings, tableName: options.tableNames[table], handler, onFailureQueueUrl },
      {
        streams,
        sqs,
        checkpointFile: join(options.dataDir, 'stream-pollers', `${settings.functionName}.json`),
        region: LOCAL_REGION,
        account: LOCAL_SQS_ACCOUNT,
      },
    );
    // The stream is found before the runtime says it is ready: a missing one stops the start.
    await poller.pollOnce();
    poller.start();
    pollers.push(poller);
  }
  return { stop: async () => void (await Promise.all(pollers.map((poller) => poller.stop()))) };
}
