import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../config/logger.js';
import { dynamo, tableName } from '../store/dynamo.js';
import { aggregateShardBatch, type AggregatorDeps } from './stream-aggregation.js';

/**
 * The usage table's stream as the aggregator's event source mapping delivers it. The mapping
 * has a tumbling window, which is what makes Lambda name the shard (`shardId`) in the event: a
 * DynamoDB stream record does not carry it, and the exactly-once checkpoint is kept per shard.
 * The local stream poller names it the same way.
 */
export interface AggregatorEvent extends DynamoDBStreamEvent {
  readonly shardId?: string;
  readonly eventSourceARN?: string;
  readonly isFinalInvokeForWindow?: boolean;
}

/**
 * `state` is required by a mapping with a tumbling window (an answer without it counts as a
 * failed invocation); the aggregator keeps none in it, its state is the checkpoint.
 */
export interface AggregatorResponse extends DynamoDBBatchResponse {
  readonly state: Record<string, never>;
}

/** The mapping delivers no shard id: checkpoints cannot be kept, so nothing may be applied. */
export class AggregatorConfigurationError extends Error {
  override readonly name = 'AggregatorConfigurationError';
}

/**
 * Applies a stream batch to the usage totals; records not applied are reported as batch item
 * failures, which the mapping delivers again (and, after its retries, sends to its on-failure
 * destination). A batch without a shard id fails whole: applying it without a checkpoint could
 * count its entries twice.
 */
export async function aggregateStreamEvent(event: AggregatorEvent, deps: AggregatorDeps): Promise<AggregatorResponse> {
  if (event.Records.length === 0) return { state: {}, batchItemFailures: [] };
  const shardId = event.shardId;
  if (typeof shardId !== 'string' || shardId === '')
    throw new AggregatorConfigurationError(
      'the stream event names no shardId: the event source mapping needs a tumbling window (or the poller must name the shard)',
    );
  const outcome = await aggregateShardBatch({ shardId, records: event.Records }, deps);
  if (outcome.failed.length > 0) {
    logger.error('usage totals not updated for some stream records; the mapping delivers them again', {
      shardId,
      failed: outcome.failed.length,
      firstFailed: outcome.failed[0],
      error: outcome.error instanceof Error ? `${outcome.error.name}: ${outcome.error.message}` : String(outcome.error),
    });
  }
  return { state: {}, batchItemFailures: outcome.failed.map((itemIdentifier) => ({ itemIdentifier })) };
}

const deploymentDeps = (): AggregatorDeps => ({
  db: dynamo(),
  table: tableName('usage'),
  sleep: (ms) => new Promise((done) => setTimeout(done, ms)),
  random: Math.random,
});

/** Lambda handler: the usage table's stream (a DynamoDB event source mapping). */
export const handler = (event: AggregatorEvent): Promise<AggregatorResponse> =>
  aggregateStreamEvent(event, deploymentDeps());
