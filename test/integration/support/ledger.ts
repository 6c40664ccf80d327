import { DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { LocalGateway } from '../../../local/child-runtime.js';

/** A DynamoDB client on the runtime's embedded DynamoDB, for seeding and inspecting state. */
export function localDynamo(gateway: LocalGateway): DynamoDBClient {
  return new DynamoDBClient({
    region: gateway.aws.region,
    endpoint: gateway.aws.dynamodb,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/**
 * Points this test process's store modules at the runtime's tables, so tests can drive the
 * same ledger writer that later capabilities call.
 */
export function useRuntimeTables(gateway: LocalGateway): void {
  Object.assign(process.env, {
    AWS_REGION: gateway.aws.region,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: gateway.aws.dynamodb,
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
