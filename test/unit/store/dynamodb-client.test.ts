import { SignatureV4 } from '@smithy/signature-v4';
import { Hash } from '@smithy/hash-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createDynamoDb,
  DynamoDbError,
  TransactionCanceledError,
  type DynamoDb,
} from '../../../lambdas/store/dynamodb-client.js';
import { SigV4Signer } from '../../../lambdas/store/signed-request.js';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../local/dynamodb.js';

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session-token',
};

test('SigV4 signatures match the AWS SDK signer byte for byte', async () => {
  const now = new Date('2026-11-23T12:34:56Z');
  const body = '{"TableName":"t","Key":{"pk":{"S":"a"}}}';
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.0',
    host: 'dynamodb.eu-west-1.amazonaws.com',
    'x-amz-target': 'DynamoDB_20120810.GetItem',
  };
  new SigV4Signer('eu-west-1', 'dynamodb').sign('POST', '/', headers, body, credentials, now);

  const reference = new SignatureV4({
    credentials,
    region: 'eu-west-1',
    service: 'dynamodb',
    sha256: Hash.bind(null, 'sha256'),
    applyChecksum: false,
  });
  const signed = await reference.sign(
    {
      method: 'POST',
      protocol: 'https:',
      hostname: 'dynamodb.eu-west-1.amazonaws.com',
      path: '/',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        host: 'dynamodb.eu-west-1.amazonaws.com',
        'x-amz-target': 'DynamoDB_20120810.GetItem',
      },
      body,
    },
    { signingDate: now },
  );
  expect(headers['authorization']).toBe(signed.headers['authorization']);
  expect(headers['x-amz-date']).toBe(signed.headers['x-amz-date']);
  expect(headers['x-amz-security-token']).toBe('session-token');
});

describe('against the embedded DynamoDB', () => {
  let local: LocalDynamoDb;
  let dir: string;
  let db: DynamoDb;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ddb-client-'));
    local = await startLocalDynamoDb({ dataDir: dir, tablePrefix: 't' });
    db = createDynamoDb({ region: 'us-east-1', endpoint: local.endpoint, credentials: () => credentials });
  });
  afterAll(async () => {
    await local.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('put, get, conditional update, query, delete', async () => {
    const table = local.tableNames.cache;
    await db.putItem({ TableName: table, Item: { pk: { S: 'a' }, sk: { S: 'b' }, n: { N: '1' } } });
    expect((await db.getItem({ TableName: table, Key: { pk: { S: 'a' }, sk: { S: 'b' } } })).Item).toEqual({
      pk: { S: 'a' },
      sk: { S: 'b' },
      n: { N: '1' },
    });
    const updated = await db.updateItem({
      TableName: table,
      Key: { pk: { S: 'a' }, sk: { S: 'b' } },
      UpdateExpression: 'ADD n :one',
      ExpressionAttributeValues: { ':one': { N: '1' } },
      ReturnValues: 'ALL_NEW',
    });
    expect(updated.Attributes?.['n']).toEqual({ N: '2' });
    const page = await db.query({
      TableName: table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: 'a' } },
    });
    expect(page.Items).toHaveLength(1);
    await db.deleteItem({ TableName: table, Key: { pk: { S: 'a' }, sk: { S: 'b' } } });
    expect((await db.getItem({ TableName: table, Key: { pk: { S: 'a' }, sk: { S: 'b' } } })).Item).toBeUndefined();
  });

  test('errors carry the SDK’s names: a failed condition is ConditionalCheckFailedException', async () => {
    const table = local.tableNames.cache;
    await db.putItem({ TableName: table, Item: { pk: { S: 'c' }, sk: { S: 'd' } } });
    const error = await db
      .putItem({
        TableName: table,
        Item: { pk: { S: 'c' }, sk: { S: 'd' } },
        ConditionExpression: 'attribute_not_exists(pk)',
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DynamoDbError);
    expect((error as DynamoDbError).name).toBe('ConditionalCheckFailedException');
    const missing = await db.getItem({ TableName: 'no-such-table', Key: { pk: { S: 'x' } } }).catch((e: unknown) => e);
    expect((missing as DynamoDbError).name).toBe('ResourceNotFoundException');
  });

  test('a cancelled transaction is a TransactionCanceledError naming the failed action', async () => {
    const table = local.tableNames.usage;
    const put = {
      TableName: table,
      Item: { pk: { S: 't' }, sk: { S: 'once' } },
      ConditionExpression: 'attribute_not_exists(pk)',
    };
    const add = {
      TableName: table,
      Key: { pk: { S: 't' }, sk: { S: 'total' } },
      UpdateExpression: 'ADD n :one',
      ExpressionAttributeValues: { ':one': { N: '1' } },
    };
    await db.transactWriteItems({ TransactItems: [{ Put: put }, { Update: add }] });
    const error = await db
      .transactWriteItems({ TransactItems: [{ Update: add }, { Put: put }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionCanceledError);
    expect((error as TransactionCanceledError).name).toBe('TransactionCanceledException');
    expect((error as TransactionCanceledError).reasons.map((r) => r.Code)).toEqual(['None', 'ConditionalCheckFailed']);
    const total = await db.getItem({ TableName: table, Key: add.Key });
    expect(total.Item?.['n']).toEqual({ N: '1' });
  });

  test('a wrong endpoint fails after its retries with a connection error', async () => {
    const dead = createDynamoDb({
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:9',
      credentials: () => credentials,
      maxAttempts: 2,
    });
    await expect(dead.getItem({ TableName: 't', Key: {} })).rejects.toThrow(/ECONNREFUSED/);
  });
});
