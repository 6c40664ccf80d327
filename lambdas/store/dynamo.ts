import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { convertToAttr, marshall, unmarshall, type NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { configuration, required } from '../config/configuration.js';
import { tableSchemas, type TableName } from './table-schema.js';

import { createDynamoDb, type DynamoDb } from './dynamodb-client.js';

/**
 * The shared DynamoDB client, made from the instance's configuration (the store is a shared
 * layer every feature's repositories reach, so it takes the one configuration rather than
 * threading it through each of them). Locally only its endpoint differs
 * (AWS_ENDPOINT_URL_DYNAMODB): production code has no local branches. Credentials are the
 * function role's, which the Lambda runtime puts in the environment.
 */
let client: DynamoDb | undefined;

export function dynamo(): DynamoDb {
  if (client) return client;
  const { region, endpoints, credentials } = configuration();
  const inRegion = required(region, 'AWS_REGION');
  const role = required(credentials, 'AWS_ACCESS_KEY_ID');
  client = createDynamoDb({
    region: inRegion,
    endpoint: endpoints.dynamodb ?? `https://dynamodb.${inRegion}.amazonaws.com`,
    credentials: () => role,
  });
  return client;
}

export function tableName(table: TableName): string {
  const name = configuration().tables[table];
  if (name === undefined)
    throw new Error(`environment variable ${tableSchemas.find((schema) => schema.name === table)!.envVar} is not set`);
  return name;
}

export type Item = Record<string, AttributeValue>;

const MARSHALL_OPTIONS = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;

/**
 * `marshall(record, MARSHALL_OPTIONS)`, with the attributes the hot path writes (strings,
 * safe numbers, booleans, null) converted here: the SDK's converter rebuilds lists of type
 * names for every value it looks at, a visible share of a request's CPU. Anything else (nested
 * maps, lists, sets, binary, special or unsafe numbers) goes through the SDK's own converter,
 * errors included, so the result is always the SDK's.
 */
export function toItem(record: Record<string, unknown>): Item {
  const proto: unknown = Object.getPrototypeOf(record);
  if (proto !== Object.prototype && proto !== null) return marshall(record, MARSHALL_OPTIONS);
  const item: Item = {};
  for (const name in record) {
    const value = record[name];
    switch (typeof value) {
      case 'undefined':
      case 'function':
        continue;
      case 'string':
        item[name] = { S: value };
        continue;
      case 'boolean':
        item[name] = { BOOL: value };
        continue;
      case 'number':
        if (Number.isFinite(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER) {
          item[name] = { N: value.toString() };
          continue;
        }
        break;
      case 'object':
        if (value === null) {
          item[name] = { NULL: true };
          continue;
        }
        break;
    }
    item[name] = convertToAttr(value as NativeAttributeValue, MARSHALL_OPTIONS);
  }
  return item;
}

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
