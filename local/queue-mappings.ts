/**
 * The local runtime's event source mappings from SQS queues to functions: what the stack
 * declares with Lambda's SQS event source mappings, run in the gateway process by
 * local/queue-poller.ts against the SQS stand-in. Each mapping's queue is made at start (as the
 * stack makes it), so the handlers can send to it before anything was ever received.
 */
import type { Credentials } from '../lambdas/store/signed-request.js';
import { awsJsonClient } from './aws-json-client.js';
import {
  LOCAL_BUDGET_NOTICE_QUEUE,
  LOCAL_BUDGET_NOTICE_VISIBILITY_SECONDS,
  LOCAL_REGION,
  LOCAL_USAGE_RETRY_QUEUE,
  LOCAL_USAGE_RETRY_VISIBILITY_SECONDS,
} from './runtime-config.js';
import { QueueMappingError, QueuePoller, type QueueHandler, type QueueMapping } from './queue-poller.js';
import { LOCAL_SQS_ACCOUNT } from './standins/sqs.js';

export interface LocalQueueMapping extends Omit<QueueMapping, 'queueUrl' | 'handler'> {
  /** The queue's name in the SQS stand-in. */
  readonly queue: string;
  /** The queue's visibility timeout: how long a received message stays hidden before it is delivered again. */
  readonly visibilityTimeoutSeconds: number;
  /** A literal import, so the local runtime's bundle includes the handler module. */
  readonly load: () => Promise<{ handler: unknown }>;
}

/**
 * The usage redrive reads the usage retry queue as lib/constructs/usage-pipeline.ts maps it; the
 * budget webhook consumer reads the budget notice queue as lib/constructs/budget-webhooks.ts does
 * (the stand-in models no redrive policy: here a failing event is tried until it is delivered).
 */
export const LOCAL_QUEUE_MAPPINGS: readonly LocalQueueMapping[] = [
  {
    functionName: 'gateway-usage-redrive',
    queue: LOCAL_USAGE_RETRY_QUEUE,
    visibilityTimeoutSeconds: LOCAL_USAGE_RETRY_VISIBILITY_SECONDS,
    load: () => import('../lambdas/usage/usage-redrive.js'),
    batchSize: 10,
    reportBatchItemFailures: true,
  },
  {
    functionName: 'gateway-budget-webhooks',
    queue: LOCAL_BUDGET_NOTICE_QUEUE,
    visibilityTimeoutSeconds: LOCAL_BUDGET_NOTICE_VISIBILITY_SECONDS,
    load: () => import('../lambdas/jobs/budget-webhook-consumer.js'),
    batchSize: 10,
    reportBatchItemFailures: true,
  },
];

export interface LocalQueuePollersOptions {
  readonly mappings: readonly LocalQueueMapping[];
  readonly sqsEndpoint: string;
  readonly credentials: Credentials;
}

export interface LocalQueuePollers {
  /** Lets each mapping finish the batch in flight, then stops it. */
  stop(): Promise<void>;
}

export async function startLocalQueuePollers(options: LocalQueuePollersOptions): Promise<LocalQueuePollers> {
  const sqs = awsJsonClient({
    endpoint: options.sqsEndpoint,
    region: LOCAL_REGION,
    service: 'sqs',
    targetPrefix: 'AmazonSQS',
    credentials: () => options.credentials,
  });
  const pollers: QueuePoller[] = [];
  for (const { queue, visibilityTimeoutSeconds, load, ...settings } of options.mappings) {
    const { QueueUrl: queueUrl } = await sqs<{ QueueUrl: string }>('CreateQueue', {
      QueueName: queue,
      Attributes: { VisibilityTimeout: String(visibilityTimeoutSeconds) },
    });
    const handler: QueueHandler = async (event) => {
      const loaded = (await load()).handler;
      if (typeof loaded !== 'function')
        throw new QueueMappingError(`${settings.functionName}: the handler module exports no handler function`);
      return (loaded as QueueHandler)(event);
    };
    const poller = new QueuePoller(
      { ...settings, queueUrl, handler },
      { sqs, region: LOCAL_REGION, account: LOCAL_SQS_ACCOUNT },
    );
    poller.start();
    pollers.push(poller);
  }
  return { stop: async () => void (await Promise.all(pollers.map((poller) => poller.stop()))) };
}
