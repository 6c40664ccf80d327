import { BUDGET_WEBHOOK_FUNCTION } from '../../../lib/constructs/budget-webhooks.js';
import { AGGREGATOR_MAPPING, USAGE_PIPELINE_FUNCTIONS } from '../../../lib/constructs/usage-pipeline.js';
import { tableSchemas } from '../../../lambdas/store/table-schema.js';
import { LOCAL_QUEUE_MAPPINGS } from '../../../local/queue-mappings.js';
import { LOCAL_AGGREGATOR_BATCHING_WINDOW_SECONDS, LOCAL_STREAM_MAPPINGS } from '../../../local/stream-mappings.js';

// The local runtime's mappings repeat the stack's settings (it cannot import the CDK construct):
// these checks keep the two from drifting apart.

test('the usage table streams new images, which the aggregator reads', () => {
  expect(tableSchemas.find((schema) => schema.name === 'usage')?.stream).toBe('NEW_IMAGE');
});

test("the local aggregator mapping has the deployed mapping's settings, with a shorter batching window", () => {
  const aggregator = LOCAL_STREAM_MAPPINGS.find((mapping) => mapping.functionName === 'gateway-usage-aggregator');
  expect(aggregator).toMatchObject({
    table: 'usage',
    batchSize: AGGREGATOR_MAPPING.batchSize,
    maximumBatchingWindowSeconds: LOCAL_AGGREGATOR_BATCHING_WINDOW_SECONDS,
    tumblingWindowSeconds: AGGREGATOR_MAPPING.tumblingWindow.toSeconds(),
    maximumRetryAttempts: AGGREGATOR_MAPPING.retryAttempts,
    bisectBatchOnFunctionError: true,
    reportBatchItemFailures: true,
    timeoutSeconds: USAGE_PIPELINE_FUNCTIONS.aggregator.timeoutSeconds,
  });
  expect(aggregator?.onFailureQueue).toBeDefined();
  expect(LOCAL_AGGREGATOR_BATCHING_WINDOW_SECONDS).toBeLessThanOrEqual(
    AGGREGATOR_MAPPING.maxBatchingWindow.toSeconds(),
  );
});

test('the local redrive and budget webhook mappings read their queues as the deployed ones do', async () => {
  expect(LOCAL_QUEUE_MAPPINGS).toEqual([
    expect.objectContaining({ functionName: 'gateway-usage-redrive', batchSize: 10, reportBatchItemFailures: true }),
    expect.objectContaining({ functionName: 'gateway-budget-webhooks', batchSize: 10, reportBatchItemFailures: true }),
  ]);
  // The same module as the deployed consumer's entry.
  const consumer = await import(`../../../${BUDGET_WEBHOOK_FUNCTION.entry.replace(/\.ts$/, '.js')}`);
  expect((await LOCAL_QUEUE_MAPPINGS[1]!.load()).handler).toBe(consumer.handler);
});
