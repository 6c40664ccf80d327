import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { tableSchemas, type TableName } from './table-schema.js';

import { createDynamoDb, type DynamoDb } from './dynamodb-client.js';

/**
 * The shared DynamoDB client. Locally only its endpoint differs (AWS_ENDPOINT_URL_DYNAMODB):
 * production code has no local branches. Credentials come from the environment, where the
 * Lambda runtime puts the function role's.
 */
let client: DynamoDb | undefined;

export function dynamo(): DynamoDb {
  client ??= createDynamoDb({
    region: requiredEnv('AWS_REGION'),
    endpoint:
      process.env['AWS_ENDPOINT_URL_DYNAMODB'] ||
      process.env['AWS_ENDPOINT_URL'] ||
      `https://dynamodb.${requiredEnv('AWS_REGION')}.amazonaws.com`,
    credentials: () => ({
      accessKeyId: requiredEnv('AWS_ACCESS_KEY_ID'),
      secretAccessKey: requiredEnv('AWS_SECRET_ACCESS_KEY'),
      sessionToken: process.env['AWS_SESSION_TOKEN'] || undefined,
    }),
  });
  return client;
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`environment variable ${name} is not set (DynamoDB needs it)`);
  return value;
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

/** Runs a conditional write: true when it was applied, false when its condition did not hold. */
export async function conditionHolds(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

export const nowSeconds = (now = Date.now()): number => Math.floor(now / 1000);
