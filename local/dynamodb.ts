/**
 * The embedded DynamoDB of the local runtime: dynalite, persisted with LevelDB, running in a
 * child process (local/dynamodb-child.mjs) with the tables of lambdas/store/table-schema.ts.
 */
import type {
  AttributeDefinition,
  CreateTableCommandInput,
  DescribeTableCommandOutput,
  ListTablesCommandOutput,
  TableDescription,
} from '@aws-sdk/client-dynamodb';
import { createDynamoDb, type DynamoDb } from '../lambdas/store/dynamodb-client.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  PARTITION_KEY,
  SORT_KEY,
  tableSchemas,
  type TableName,
  type TableSchema,
} from '../lambdas/store/table-schema.js';

export interface LocalDynamoDbOptions {
  /** LevelDB folder; created if missing. One runtime at a time may use it (LevelDB locks it). */
  readonly dataDir: string;
  /** Physical names are `<prefix>-<table>`, e.g. `gateway-identity`. */
  readonly tablePrefix: string;
  readonly startTimeoutMs?: number;
  /**
   * Milliseconds each call waits before it is served, as from Lambda to DynamoDB in AWS
   * (local/dynamodb-latency.mjs); 0, the default, serves at loopback speed.
   */
  readonly latencyMs?: number;
}

export interface LocalDynamoDb {
  /** Value for `AWS_ENDPOINT_URL_DYNAMODB`. */
  readonly endpoint: string;
  readonly tableNames: Readonly<Record<TableName, string>>;
  stop(): Promise<void>;
}

const CHILD_SCRIPT = fileURLToPath(new URL('./dynamodb-child.mjs', import.meta.url));
const STOP_GRACE_MS = 10_000;

export function physicalTableNames(prefix: string): Record<TableName, string> {
  return Object.fromEntries(tableSchemas.map((t) => [t.name, `${prefix}-${t.name}`])) as Record<TableName, string>;
}

export async function startLocalDynamoDb(options: LocalDynamoDbOptions): Promise<LocalDynamoDb> {
  mkdirSync(options.dataDir, { recursive: true });
  const deadline = Date.now() + (options.startTimeoutMs ?? 15_000);
  const child = spawn(
    process.execPath,
    [CHILD_SCRIPT, JSON.stringify({ path: options.dataDir, latencyMs: options.latencyMs ?? 0 })],
    {
      // stdin is a pipe only so the child sees EOF when this process dies.
      stdio: ['pipe', 'inherit', 'inherit', 'ipc'],
      // Its own process group: a terminal's Ctrl-C must not stop the database before the gateway
      // has drained. The runtime stops it last; it exits by itself if this process dies.
      detached: true,
    },
  );
  const stop = () => stopChild(child);
  try {
    const port = await childPort(child, deadline);
    const endpoint = `http://127.0.0.1:${port}`;
    // The gateway's own small client: the runtime process never loads the AWS SDK's.
    const client = createDynamoDb({
      endpoint,
      region: 'us-east-1',
      credentials: () => ({ accessKeyId: 'local', secretAccessKey: 'local' }),
      maxAttempts: 1,
    });
    await waitUntilAnswering(client, child, deadline);
    const tableNames = physicalTableNames(options.tablePrefix);
    await ensureTables(client, tableNames, deadline);
    return { endpoint, tableNames, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

function childPort(child: ChildProcess, deadline: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('dynalite did not start in time')), deadline - Date.now());
    const done = () => {
      clearTimeout(timer);
      child.off('message', onMessage).off('exit', onExit).off('error', onError);
    };
    const onMessage = (message: { port?: number; error?: string }) => {
      done();
      if (typeof message.port === 'number') resolve(message.port);
      else reject(new Error(`dynalite failed to start: ${message.error ?? 'unknown error'}`));
    };
    const onExit = (code: number | null, signal: string | null) => {
      done();
      reject(new Error(`dynalite exited during start (code ${code}, signal ${signal})`));
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    child.on('message', onMessage).on('exit', onExit).on('error', onError);
  });
}

async function waitUntilAnswering(client: DynamoDb, child: ChildProcess, deadline: number): Promise<void> {
  for (;;) {
    try {
      await client.request('ListTables', { Limit: 1 });
      return;
    } catch (err) {
      if (child.exitCode !== null) throw new Error(`dynalite exited with code ${child.exitCode}`, { cause: err });
      if (Date.now() > deadline)
        throw new Error(`dynalite is not answering: ${(err as Error).message}`, { cause: err });
      await sleep(50);
    }
  }
}

async function ensureTables(client: DynamoDb, names: Record<TableName, string>, deadline: number): Promise<void> {
  const existing = new Set<string>();
  let start: string | undefined;
  do {
    const page = await client.request<ListTablesCommandOutput>('ListTables', { ExclusiveStartTableName: start });
    for (const name of page.TableNames ?? []) existing.add(name);
    start = page.LastEvaluatedTableName;
  } while (start);

  for (const schema of tableSchemas) {
    const name = names[schema.name];
    if (!existing.has(name)) {
      try {
        await client.request('CreateTable', createTableInput(schema, name));
      } catch (err) {
        if ((err as Error).name !== 'ResourceInUseException') throw err;
      }
    }
    checkMatchesSchema(await waitUntilActive(client, name, deadline), schema);
  }
}

function createTableInput(schema: TableSchema, name: string): CreateTableCommandInput {
  const keys = [PARTITION_KEY, SORT_KEY, ...schema.indexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  const attributes: AttributeDefinition[] = [...new Set(keys)].map((AttributeName) => ({
    AttributeName,
    AttributeType: 'S',
  }));
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: attributes,
    KeySchema: keySchema(PARTITION_KEY, SORT_KEY),
    GlobalSecondaryIndexes: schema.indexes.length
      ? schema.indexes.map((i) => ({
          IndexName: i.name,
          KeySchema: keySchema(i.partitionKey, i.sortKey),
          Projection: { ProjectionType: 'ALL' as const },
        }))
      : undefined,
  };
}

function keySchema(hash: string, range: string) {
  return [
    { AttributeName: hash, KeyType: 'HASH' as const },
    { AttributeName: range, KeyType: 'RANGE' as const },
  ];
}

async function waitUntilActive(client: DynamoDb, name: string, deadline: number): Promise<TableDescription> {
  for (;;) {
    const { Table: table } = await client.request<DescribeTableCommandOutput>('DescribeTable', { TableName: name });
    const indexesActive = (table?.GlobalSecondaryIndexes ?? []).every((i) => i.IndexStatus === 'ACTIVE');
    if (table?.TableStatus === 'ACTIVE' && indexesActive) return table;
    if (Date.now() > deadline) throw new Error(`table ${name} did not become ACTIVE (status ${table?.TableStatus})`);
    await sleep(20);
  }
}

/**
 * dynalite cannot add an index to an existing table, so a data folder made before an index was
 * declared would silently answer queries wrongly: say so instead.
 */
function checkMatchesSchema(table: TableDescription, schema: TableSchema): void {
  const describeKeys = (keys: TableDescription['KeySchema']) =>
    (keys ?? []).map((k) => `${k.AttributeName}:${k.KeyType}`).join(',');
  const actual = [
    describeKeys(table.KeySchema),
    ...(table.GlobalSecondaryIndexes ?? []).map((i) => `${i.IndexName}(${describeKeys(i.KeySchema)})`).sort(),
  ];
  const expected = createTableInput(schema, table.TableName ?? '');
  const wanted = [
    describeKeys(expected.KeySchema),
    ...(expected.GlobalSecondaryIndexes ?? []).map((i) => `${i.IndexName}(${describeKeys(i.KeySchema)})`).sort(),
  ];
  if (actual.join(';') !== wanted.join(';')) {
    throw new Error(
      `local table ${table.TableName} does not match lambdas/store/table-schema.ts ` +
        `(has ${actual.join('; ')}, want ${wanted.join('; ')}); delete the local DynamoDB data folder to recreate it`,
    );
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
