import { DynamoDBClient, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { tableSchemas, type TableName } from './table-schema.js';

/**
 * The shared DynamoDB client. Locally only its endpoint differs (AWS_ENDPOINT_URL_DYNAMODB):
 * production code has no local branches.
 */
let client: DynamoDBClient | undefined;

export function dynamo(): DynamoDBClient {
  client ??= new DynamoDBClient({ maxAttempts: 3 });
  return client;
}

const names = new Map<TableName, string>();

export function tableName(table: TableName): string {
  let name = names.get(table);
  if (!name) {
    const envVar = tableSchemas.find((schema) => schema.name === table)!.envVar;
    name = process.env[envVar];
    if (!name) throw new Error(`environment variable ${envVar} is not set`);
    names.set(table, name);
  }
  return name;
}

export type Item = Record<string, AttributeValue>;

export const toItem = (record: Record<string, unknown>): Item =>
  marshall(record, { removeUndefinedValues: true, convertClassInstanceToMap: false });

export const fromItem = <T>(item: Item): T => unmarshall(item) as T;

export const isConditionFailure = (error: unknown): boolean =>
  (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';

export const nowSeconds = (now = Date.now()): number => Math.floor(now / 1000);
