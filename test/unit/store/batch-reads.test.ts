import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../local/dynamodb.js';
import { batchedGet } from '../../../lambdas/store/batch-reads.js';
import { dynamo } from '../../../lambdas/store/dynamo.js';

/** Reads from concurrent callers share one call; a lone read is a GetItem. Against dynalite. */
let dataDir: string;
let db: LocalDynamoDb;
let table: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'batch-reads-'));
  db = await startLocalDynamoDb({ dataDir, tablePrefix: 'reads' });
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL_DYNAMODB: db.endpoint,
  });
  table = db.tableNames.cache;
  for (const n of [1, 2, 3])
    await dynamo().putItem({ TableName: table, Item: { pk: { S: 'A' }, sk: { S: `K${n}` }, n: { N: String(n) } } });
}, 30_000);

afterAll(async () => {
  await db.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const key = (sk: string) => ({ pk: { S: 'A' }, sk: { S: sk } });

test('a lone read finds its item, or nothing', async () => {
  expect((await batchedGet(table, key('K1')))?.['n']).toEqual({ N: '1' });
  expect(await batchedGet(table, key('missing'))).toBeUndefined();
});

test('reads made together each get their own item, repeats and misses included', async () => {
  const found = await Promise.all(['K1', 'K2', 'K2', 'missing', 'K3'].map((sk) => batchedGet(table, key(sk))));
  expect(found.map((item) => item?.['n']?.N)).toEqual(['1', '2', '2', undefined, '3']);
});

test('the same key asked for twice at once answers both callers', async () => {
  const [a, b] = await Promise.all([batchedGet(table, key('K3')), batchedGet(table, key('K3'))]);
  expect(a?.['n']).toEqual({ N: '3' });
  expect(b).toEqual(a);
});
