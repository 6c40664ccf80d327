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
import { TENANT_TABLE_READS } from '../lib/tenant-access-policy.js';
import type { StandInCredentials } from './standins/signature-check.js';
import type { TenantTableReads } from './standins/tenant-sessions.mjs';
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
  /** Per-partition throughput limits (local/dynamodb-throughput.mjs); the environment's, else AWS's. */
  readonly partitionThroughput?: PartitionThroughput;
  /**
   * Tests only: how many items' values the read cache keeps (local/dynamodb-level-front.mjs), so
   * a test can make it evict. @default its VALUE_ENTRIES
   */
  readonly readCacheValues?: number;
  /**
   * Enforce the tenant-access role's policy on tenant sessions signed from these credentials
   * (local/dynamodb-tenant-access.mjs). @default none: session tokens are not looked at
   */
  readonly tenantSessions?: { readonly credentials: StandInCredentials };
}

/**
 * Capacity units per second each partition key may use, as DynamoDB enforces per partition;
 * `'off'` for no limit.
 */
export interface PartitionThroughput {
  /** @default $GATEWAY_DYNAMODB_PARTITION_WCU, else 1000 (AWS's) */
  readonly writeUnitsPerSecond?: number | 'off';
  /** @default $GATEWAY_DYNAMODB_PARTITION_RCU, else 3000 (AWS's) */
  readonly readUnitsPerSecond?: number | 'off';
  /**
   * Tests only: the limits' clock stands still until `POST <endpoint>/__local/throughput/advance?ms=N`
   * moves it, so refills happen when a test says. @default false (the real clock)
   */
  readonly manualClock?: boolean;
}

export const PARTITION_WCU_ENV = 'GATEWAY_DYNAMODB_PARTITION_WCU';
export const PARTITION_RCU_ENV = 'GATEWAY_DYNAMODB_PARTITION_RCU';

export interface LocalDynamoDb {
  /** Value for `AWS_ENDPOINT_URL_DYNAMODB`. */
  readonly endpoint: string;
  /** Value for `AWS_ENDPOINT_URL_DYNAMODB_STREAMS`: the Streams API, on a port of its own as in AWS. */
  readonly streamsEndpoint: string;
  readonly tableNames: Readonly<Record<TableName, string>>;
  stop(): Promise<void>;
}

const CHILD_SCRIPT = fileURLToPath(new URL('./dynamodb-child.mjs', import.meta.url));
const STOP_GRACE_MS = 10_000;

/** The tenant-access role's table statements (lib/tenant-access-policy.ts), by physical table name. */
export function tenantTableReads(tableNames: Readonly<Record<TableName, string>>): TenantTableReads {
  return Object.fromEntries(
    TENANT_TABLE_READS.map((read) => [
      tableNames[read.table],
      { actions: read.actions, leadingKeys: read.leadingKeys },
    ]),
  );
}

export function physicalTableNames(prefix: string): Record<TableName, string> {
  return Object.fromEntries(tableSchemas.map((t) => [t.name, `${prefix}-${t.name}`])) as Record<TableName, string>;
}

export async function startLocalDynamoDb(options: LocalDynamoDbOptions): Promise<LocalDynamoDb> {
  const throughput = throughputOf(options.partitionThroughput ?? {});
  mkdirSync(options.dataDir, { recursive: true });
  const deadline = Date.now() + (options.startTimeoutMs ?? 15_000);
  const child = spawn(
    process.execPath,
    [
      CHILD_SCRIPT,
      JSON.stringify({
        path: options.dataDir,
        latencyMs: options.latencyMs ?? 0,
        throughput,
        readCacheValues: options.readCacheValues,
      }),
    ],
    {
      env: options.tenantSessions
        ? {
            ...process.env,
            GATEWAY_TENANT_SESSIONS: JSON.stringify({
              credentials: options.tenantSessions.credentials,
              reads: tenantTableReads(physicalTableNames(options.tablePrefix)),
            }),
          }
        : process.env,
      // stdin is a pipe only so the child sees EOF when this process dies.
      stdio: ['pipe', 'inherit', 'inherit', 'ipc'],
      // Its own process group: a terminal's Ctrl-C must not stop the database before the gateway
      // has drained. The runtime stops it last; it exits by itself if this process dies.
      detached: true,
    },
  );
  const stop = () => stopChild(child);
  try {
    const { port, streamsPort } = await childPorts(child, deadline);
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
    return { endpoint, streamsEndpoint: `http://127.0.0.1:${streamsPort}`, tableNames, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The child's throughput options: the given limits, else the environment's; 'off' when neither kind is limited. */
function throughputOf(given: PartitionThroughput): PartitionThroughput | 'off' {
  const writeUnitsPerSecond = given.writeUnitsPerSecond ?? partitionLimitFromEnv(PARTITION_WCU_ENV);
  const readUnitsPerSecond = given.readUnitsPerSecond ?? partitionLimitFromEnv(PARTITION_RCU_ENV);
  for (const [name, value] of [
    ['writeUnitsPerSecond', writeUnitsPerSecond],
    ['readUnitsPerSecond', readUnitsPerSecond],
  ] as const) {
    if (typeof value === 'number' && !(Number.isFinite(value) && value > 0))
      throw new Error(`partitionThroughput.${name} must be a positive number or 'off' (got ${value})`);
  }
  if (writeUnitsPerSecond === 'off' && readUnitsPerSecond === 'off') return 'off';
  return { writeUnitsPerSecond, readUnitsPerSecond, manualClock: given.manualClock ?? false };
}

/** A limit from the environment: unset or empty keeps the default, `off` lifts it. */
export function partitionLimitFromEnv(
  name: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): number | 'off' | undefined {
  const text = env[name]?.trim();
  if (!text) return undefined;
  if (text.toLowerCase() === 'off') return 'off';
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number of capacity units per second, or "off" (got "${text}")`);
  return value;
}

function childPorts(child: ChildProcess, deadline: number): Promise<{ port: number; streamsPort: number }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('dynalite did not start in time')), deadline - Date.now());
    const done = () => {
      clearTimeout(timer);
      child.off('message', onMessage).off('exit', onExit).off('error', onError);
    };
    const onMessage = (message: { port?: number; streamsPort?: number; error?: string }) => {
      done();
      if (typeof message.port === 'number' && typeof message.streamsPort === 'number')
        resolve({ port: message.port, streamsPort: message.streamsPort });
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
    const table = await waitUntilActive(client, name, deadline);
    checkMatchesSchema(table, schema);
    await ensureStream(client, table, schema);
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
    ...(schema.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: schema.stream } } : {}),
    GlobalSecondaryIndexes: schema.indexes.length
      ? schema.indexes.map((i) => ({
          IndexName: i.name,
          KeySchema: keySchema(i.partitionKey, i.sortKey),
          Projection: { ProjectionType: 'ALL' as const },
        }))
      : undefined,
  };
}

/**
 * A table made before its schema declared a stream gets one, as UpdateTable gives it in AWS
 * (a different view type needs a new stream: the old one is disabled first).
 */
async function ensureStream(client: DynamoDb, table: TableDescription, schema: TableSchema): Promise<void> {
  const has = table.StreamSpecification?.StreamEnabled ? table.StreamSpecification.StreamViewType : undefined;
  if (has === schema.stream) return;
  if (has !== undefined)
    await client.request('UpdateTable', { TableName: table.TableName, StreamSpecification: { StreamEnabled: false } });
  if (schema.stream !== undefined)
    await client.request('UpdateTable', {
      TableName: table.TableName,
      StreamSpecification: { StreamEnabled: true, StreamViewType: schema.stream },
    });
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
