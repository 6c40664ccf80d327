import {
  BatchExecuteStatementCommand,
  DuplicateItemException,
  DynamoDBClient,
  ExecuteStatementCommand,
  GetItemCommand,
  PutItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { insertStatement } from '../../../lambdas/store/partiql-insert.js';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../local/dynamodb.js';

// PartiQL INSERT in the embedded DynamoDB (local/dynamodb-partiql.mjs), read back with the AWS
// SDK's own client (retries off), whose parsers are the oracle for AWS's shapes. Partitions are
// limited to 20 WCU/s on a clock that moves only when a test moves it, so a batch can be
// throttled statement by statement.
const WCU = 20;

let dataDir: string;
let db: LocalDynamoDb;
let client: DynamoDBClient;
let table: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'dynalite-partiql-'));
  db = await startLocalDynamoDb({
    dataDir,
    tablePrefix: 'pq',
    partitionThroughput: { writeUnitsPerSecond: WCU, readUnitsPerSecond: 100, manualClock: true },
  });
  client = new DynamoDBClient({
    endpoint: db.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  table = db.tableNames.usage;
}, 30_000);

afterAll(async () => {
  client.destroy();
  await db.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const item = (pk: string, sk: string, extra: Record<string, AttributeValue> = {}) => ({
  pk: { S: pk },
  sk: { S: sk },
  ...extra,
});
const read = async (pk: string, sk: string) =>
  (await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: pk }, sk: { S: sk } } }))).Item;

test('an INSERT creates the item with its parameters; a second one on the key is DuplicateItemException and changes nothing', async () => {
  const first = item('pq-a', 's1', {
    cost: { N: '12' },
    tags: { SS: ['x', 'y'] },
    nested: { M: { k: { BOOL: true } } },
  });
  await client.send(new ExecuteStatementCommand(insertStatement(table, first)));
  expect(await read('pq-a', 's1')).toEqual(first);

  const again = insertStatement(table, item('pq-a', 's1', { cost: { N: '99' } }));
  const refused = await client.send(new ExecuteStatementCommand(again)).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(DuplicateItemException);
  expect((refused as Error).message).toBe('Duplicate primary key exists in table');
  expect(await read('pq-a', 's1')).toEqual(first);
});

test('a batch answers statement by statement, in order: created, or DuplicateItem for a key already there', async () => {
  await client.send(new PutItemCommand({ TableName: table, Item: item('pq-b', 'old', { v: { S: 'kept' } }) }));
  const { Responses } = await client.send(
    new BatchExecuteStatementCommand({
      Statements: [
        insertStatement(table, item('pq-b', 'new-1')),
        insertStatement(table, item('pq-b', 'old', { v: { S: 'replacement' } })),
        insertStatement(table, item('pq-b', 'new-2')),
      ],
    }),
  );
  expect(Responses).toEqual([
    { TableName: table },
    { TableName: table, Error: { Code: 'DuplicateItem', Message: 'Duplicate primary key exists in table' } },
    { TableName: table },
  ]);
  expect(await read('pq-b', 'old')).toEqual(item('pq-b', 'old', { v: { S: 'kept' } }));
  expect(await read('pq-b', 'new-2')).toEqual(item('pq-b', 'new-2'));
});

test('literal values, quoted names and a quoted table name are read as PartiQL writes them', async () => {
  await client.send(
    new ExecuteStatementCommand({
      Statement: `insert into "${table}" value { 'pk' : 'pq-c', 'sk': ?, 'it''s' : -1.5e3, 'say': 'a ''b''' }`,
      Parameters: [{ S: 's' }],
    }),
  );
  expect(await read('pq-c', 's')).toEqual({
    pk: { S: 'pq-c' },
    sk: { S: 's' },
    "it's": { N: '-1500' }, // DynamoDB keeps a number's value, not its spelling
    say: { S: "a 'b'" },
  });
});

test.each([
  ['a SELECT', { Statement: `SELECT * FROM "TABLE" WHERE pk = 'x'` }, /runs only PartiQL INSERT/],
  ['an UPDATE', { Statement: `UPDATE "TABLE" SET a = 1 WHERE pk = 'x'` }, /runs only PartiQL INSERT/],
  ['a nested literal', { Statement: `INSERT INTO "TABLE" VALUE {'pk': {'a': 1}}` }, /runs only PartiQL INSERT/],
  [
    'a trailing clause',
    { Statement: `INSERT INTO "TABLE" VALUE {'pk': ?} RETURNING ALL NEW *`, Parameters: [{ S: 'x' }] },
    /runs only PartiQL INSERT/,
  ],
  [
    'too few parameters',
    { Statement: `INSERT INTO "TABLE" VALUE {'pk': ?, 'sk': ?}`, Parameters: [{ S: 'x' }] },
    /Number of parameters/,
  ],
  ['an unterminated quote', { Statement: `INSERT INTO "TABLE" VALUE {'pk: ?}` }, /well formed/],
  ['a repeated name', { Statement: `INSERT INTO "TABLE" VALUE {'pk': 'a', 'pk': 'b'}` }, /Duplicate attribute name/],
])('%s is refused whole with a ValidationException', async (_, statement, message) => {
  const request = { ...statement, Statement: statement.Statement.replace('TABLE', table) };
  const refused = await client
    .send(new BatchExecuteStatementCommand({ Statements: [request] }))
    .catch((e: unknown) => e as Error);
  expect(refused).toMatchObject({ name: 'ValidationException', message: expect.stringMatching(message) });
});

test('a batch is 1 to 25 statements on distinct items', async () => {
  const statements = (n: number, pk: string) =>
    Array.from({ length: n }, (_, i) => insertStatement(table, item(pk, `s${i}`)));
  for (const Statements of [statements(26, 'pq-d'), []])
    await expect(client.send(new BatchExecuteStatementCommand({ Statements }))).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringMatching(/'statements' failed to satisfy constraint/),
    });
  const twice = [...statements(2, 'pq-e'), insertStatement(table, item('pq-e', 's0', { v: { S: 'other' } }))];
  await expect(client.send(new BatchExecuteStatementCommand({ Statements: twice }))).rejects.toMatchObject({
    name: 'ValidationException',
    message: 'Provided list of item keys contains duplicates',
  });
  expect(await read('pq-e', 's1')).toBeUndefined();
});

test('a statement DynamoDB itself refuses answers with its code and the others still land', async () => {
  const { Responses } = await client.send(
    new BatchExecuteStatementCommand({
      Statements: [
        insertStatement(table, { pk: { S: 'pq-f' } }), // no sort key
        insertStatement('no-such-table', item('pq-f', 's')),
        insertStatement(table, item('pq-f', 'ok')),
      ],
    }),
  );
  expect(Responses!.map((r) => r.Error?.Code)).toEqual(['ValidationError', 'ResourceNotFound', undefined]);
  expect(await read('pq-f', 'ok')).toEqual(item('pq-f', 'ok'));
});

test("a hot partition's statements past its capacity come back ProvisionedThroughputExceeded, unwritten, and land once it refills", async () => {
  // Each item under 1 KB: 1 WCU. The partition starts with one second's capacity (20 WCU).
  const statements = Array.from({ length: 25 }, (_, i) => insertStatement(table, item('pq-hot', `s${i}`)));
  const { Responses } = await client.send(new BatchExecuteStatementCommand({ Statements: statements }));
  const throttled = Responses!.flatMap((r, i) => (r.Error ? [i] : []));
  expect(Responses!.filter((r) => r.Error).map((r) => r.Error!.Code)).toEqual(
    throttled.map(() => 'ProvisionedThroughputExceeded'),
  );
  expect(25 - throttled.length).toBe(WCU);
  for (const [i] of statements.entries())
    expect([i, (await read('pq-hot', `s${i}`)) !== undefined]).toEqual([i, !throttled.includes(i)]);

  await fetch(`${db.endpoint}/__local/throughput/advance?ms=1000`, { method: 'POST' });
  const again = await client.send(
    new BatchExecuteStatementCommand({ Statements: throttled.map((i) => statements[i]!) }),
  );
  expect(again.Responses!.every((r) => !r.Error)).toBe(true);
});

test('8 KB statement texts of quotes and braces are refused as malformed', async () => {
  for (const body of ["'".repeat(8000), '{'.repeat(8000), `{${"'a':1,".repeat(1300)}`]) {
    const refused = await client
      .send(new ExecuteStatementCommand({ Statement: `INSERT INTO "${table}" VALUE ${body}` }))
      .catch((e: unknown) => e as Error);
    expect(refused).toMatchObject({ name: 'ValidationException' });
  }
});
