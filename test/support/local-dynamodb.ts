import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalDynamoDb, type LocalDynamoDb, type LocalDynamoDbOptions } from '../../local/dynamodb.js';

/**
 * An embedded DynamoDB (dynalite) for one test file, with the store's environment pointed at
 * it (region, credentials, endpoint, and the cache table's name, which the store reads from
 * CACHE_TABLE). Registers its own beforeAll / afterAll. `partitionThroughput` scales the
 * per-partition limits down (they default to AWS's).
 */
export function useLocalDynamoDb(
  tablePrefix: string,
  options: Pick<LocalDynamoDbOptions, 'partitionThroughput'> = {},
): () => LocalDynamoDb {
  let dataDir: string;
  let db: LocalDynamoDb | undefined;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), `${tablePrefix}-`));
    db = await startLocalDynamoDb({ dataDir, tablePrefix, ...options });
    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_ENDPOINT_URL_DYNAMODB: db.endpoint,
      CACHE_TABLE: db.tableNames.cache,
    });
  }, 30_000);
  afterAll(async () => {
    await db?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return () => db!;
}
