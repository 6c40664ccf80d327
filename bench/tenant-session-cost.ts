/**
 * The cost of reading under a tenant session (lambdas/store/tenant-credentials.ts), at AWS
 * speed: STS held `BENCH_STS_LATENCY_MS` a call (default 15 ms, an assumption: AWS publishes no
 * latency for regional STS; in-region AssumeRole calls are commonly 10-20 ms) and DynamoDB
 * `BENCH_DYNAMODB_LATENCY_MS` (default 3 ms, as the deployment-shaped bench). For one tenant-read
 * (a usage Query under the session, as GET /api/v1/usage makes): on a cold instance, the first
 * read of an account pays one AssumeRole; a warm one (the account's session kept) pays nothing
 * beyond the read itself. Prints both and their difference, and the STS calls each made.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDynamoDb } from '../lambdas/store/dynamodb-client.js';
import { createAssumeRole, type AssumeRoleRequest } from '../lambdas/store/sts-client.js';
import { TenantCredentials } from '../lambdas/store/tenant-credentials.js';
import { TENANT_MAX_SESSION_SECONDS } from '../lib/tenant-access-policy.js';
import { startLocalDynamoDb } from '../local/dynamodb.js';
import { startStsStandIn } from '../local/standins/sts.js';
import { percentile } from './stats.js';

const STS_LATENCY_MS = Number(process.env['BENCH_STS_LATENCY_MS'] ?? 15);
const DYNAMODB_LATENCY_MS = Number(process.env['BENCH_DYNAMODB_LATENCY_MS'] ?? 3);
const ROUNDS = 40;
const ROLE = 'arn:aws:iam::000000000000:role/bench-tenant-access';

export async function benchTenantSessions(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-tenant-'));
  const master = { accessKeyId: 'LOCABENCH', secretAccessKey: 'bench-master-secret' };
  const sts = await startStsStandIn({
    roleArn: ROLE,
    sessionTag: 'account',
    maxSessionSeconds: TENANT_MAX_SESSION_SECONDS,
    credentials: master,
    latencyMs: STS_LATENCY_MS,
  });
  const dynamodb = await startLocalDynamoDb({
    dataDir: join(dir, 'dynamodb'),
    tablePrefix: 'bench',
    latencyMs: DYNAMODB_LATENCY_MS,
    tenantSessions: { credentials: master },
  });
  try {
    let stsCalls = 0;
    const assume = createAssumeRole({ region: 'us-east-1', endpoint: sts.url, credentials: () => master });
    const counted = (request: AssumeRoleRequest) => {
      stsCalls++;
      return assume(request);
    };
    const read = async (cache: TenantCredentials, account: string) => {
      const started = performance.now();
      const session = await cache.get(account);
      const db = createDynamoDb({ region: 'us-east-1', endpoint: dynamodb.endpoint, credentials: () => session });
      await db.query({
        TableName: dynamodb.tableNames.usage,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: `ACCOUNT#${account}#TOTALS` } },
      });
      return performance.now() - started;
    };
    const cold: number[] = [];
    const warm: number[] = [];
    let coldCalls = 0;
    let warmCalls = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // A fresh instance's cache, a fresh account: the first read assumes the role.
      const cache = new TenantCredentials({ assumeRole: counted, roleArn: ROLE });
      const account = `acc_bench${round}`;
      let before = stsCalls;
      cold.push(await read(cache, account));
      coldCalls += stsCalls - before;
      before = stsCalls;
      warm.push(await read(cache, account));
      warmCalls += stsCalls - before;
    }
    const p50 = (values: number[]) => percentile(values, 50);
    const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
    console.log(
      `\nTenant sessions (STS held ${STS_LATENCY_MS} ms, DynamoDB ${DYNAMODB_LATENCY_MS} ms a call; ${ROUNDS} accounts):\n` +
        `  cold instance, an account's first tenant read: p50 ${fmt(p50(cold))} (AssumeRole calls: ${coldCalls / ROUNDS} a read)\n` +
        `  warm, the account's session kept:            p50 ${fmt(p50(warm))} (AssumeRole calls: ${warmCalls / ROUNDS} a read)\n` +
        `  added by the tenant session: cold ${fmt(p50(cold) - p50(warm))}, warm ${fmt(0)} (a cache hit, no call); ` +
        'requests that read nothing under one (chat without stored keys) make no STS call at all.',
    );
  } finally {
    await Promise.allSettled([sts.close(), dynamodb.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}
