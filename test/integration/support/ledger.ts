import { ENV } from '../../../lambdas/config/environment.js';
import { DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { LocalGateway } from '../../../local/child-runtime.js';
import { LOCAL_USAGE_RETRY_QUEUE } from '../../../local/runtime-config.js';
import { readStandInCredentials } from '../../../local/standin-credentials.js';
import { LOCAL_SQS_ACCOUNT } from '../../../local/standins/sqs.js';

/** A DynamoDB client on the runtime's embedded DynamoDB, for seeding and inspecting state. */
export function localDynamo(gateway: LocalGateway): DynamoDBClient {
  return new DynamoDBClient({
    region: gateway.aws.region,
    endpoint: gateway.aws.dynamodb,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/**
 * Points this test process's store modules at the runtime's tables and its usage retry queue,
 * so tests can drive the same ledger writer the handlers use.
 */
export function useRuntimeTables(gateway: LocalGateway): void {
  const credentials = readStandInCredentials(gateway.dataDir);
  Object.assign(process.env, {
    AWS_REGION: gateway.aws.region,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: gateway.aws.dynamodb,
    AWS_ENDPOINT_URL_SQS: gateway.aws.sqs,
    [ENV.usageRetryQueueUrl]: `${gateway.aws.sqs}/${LOCAL_SQS_ACCOUNT}/${LOCAL_USAGE_RETRY_QUEUE}`,
    IDENTITY_TABLE: gateway.aws.tables.identity,
    USAGE_TABLE: gateway.aws.tables.usage,
    CACHE_TABLE: gateway.aws.tables.cache,
    JOBS_TABLE: gateway.aws.tables.jobs,
  });
}

export async function scanAll(gateway: LocalGateway): Promise<Record<string, AttributeValue>[]> {
  const dynamo = localDynamo(gateway);
  const items: Record<string, AttributeValue>[] = [];
  try {
    for (const table of Object.values(gateway.aws.tables)) {
      let start: Record<string, AttributeValue> | undefined;
      do {
        const page = await dynamo.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
        items.push(...(page.Items ?? []));
        start = page.LastEvaluatedKey;
      } while (start);
    }
  } finally {
    dynamo.destroy();
  }
  return items;
}
