import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../config/logger.js';
import { dynamo, tableName } from '../store/dynamo.js';
import { putLedgerEntries, type LedgerTarget } from '../store/usage-ledger-puts.js';
import { entriesOfRetryMessage } from './usage-retry-messages.js';

/**
 * Writes the entries of retry messages (ledger writes that failed on the request path) into the
 * ledger. The writes are the same INSERTs, so an entry that did land after all, or a
 * message delivered twice, writes nothing. A message whose entries are not all in the ledger
 * afterwards is a batch item failure: SQS delivers it again, and after the queue's
 * maxReceiveCount moves it to the dead-letter queue, whose alarm tells the operator.
 */
export async function redriveUsageMessages(event: SQSEvent, target: LedgerTarget): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const message of event.Records) {
    try {
      const outcome = await putLedgerEntries(entriesOfRetryMessage(message.body), target);
      if (outcome.failed.length === 0) continue;
      logger.warn('usage entries from the retry queue not yet written; SQS delivers them again', {
        messageId: message.messageId,
        failed: outcome.failed.length,
        error: String(outcome.failed[0]!.error),
      });
    } catch (error) {
      logger.error('a usage retry message cannot be written; after its retries it goes to the dead-letter queue', {
        messageId: message.messageId,
        error: (error as Error).message,
      });
    }
    batchItemFailures.push({ itemIdentifier: message.messageId });
  }
  return { batchItemFailures };
}

/** Lambda handler: the usage retry queue (an SQS event source mapping with ReportBatchItemFailures). */
export const handler = (event: SQSEvent): Promise<SQSBatchResponse> =>
  redriveUsageMessages(event, { db: dynamo(), table: tableName('usage') });
