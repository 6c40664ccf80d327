import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobDriver } from '../../lambdas/jobs/job-driver.js';
import { JOB_TTL_SECONDS, type JobRecord } from '../../lambdas/jobs/job-record.js';
import { jobDrivers } from '../../lambdas/jobs/job-driver-registry.js';
import {
  endJob,
  getOwnedJob,
  recordProgress,
  recordWebhookDelivery,
  takePollLease,
} from '../../lambdas/jobs/job-repository.js';
import type { JobNotifyDeps } from '../../lambdas/jobs/notify-step.js';
import type { JobStepDeps } from '../../lambdas/jobs/poll-step.js';
import { send } from '../../lambdas/providers/http-transport.js';
import { UpstreamError, upstreamFailure } from '../../lambdas/providers/upstream-failure.js';
import { dynamo, tableName } from '../../lambdas/store/dynamo.js';
import { recordUsage } from '../../lambdas/usage/usage-ledger.js';
import { visitLedgerShards } from '../../lambdas/store/usage-ledger-reads.js';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../local/dynamodb.js';
import { LOCAL_TENANT_ACCESS_ROLE_ARN } from '../../local/runtime-config.js';
import { startStsStandIn } from '../../local/standins/sts.js';
import { TENANT_MAX_SESSION_SECONDS, TENANT_SESSION_TAG_KEY } from '../../lib/tenant-access-policy.js';

/** One answer of the upstream's status endpoint. */
export interface UpstreamStep {
  readonly status?: number;
  readonly body: { status: string; url?: string; message?: string };
}

/**
 * A job-running upstream on loopback: `GET /jobs/<id>` answers the next step of that job's
 * script (the last one repeats), so a test sets a job's whole life up front.
 */
export interface JobUpstream {
  readonly url: string;
  script(upstreamJobId: string, steps: readonly UpstreamStep[]): void;
  polls(upstreamJobId: string): number;
  close(): Promise<void>;
}

export async function startJobUpstream(): Promise<JobUpstream> {
  const scripts = new Map<string, { steps: readonly UpstreamStep[]; served: number }>();
  const server: Server = createServer((req, res) => {
    const id = decodeURIComponent((req.url ?? '').replace(/^\/jobs\//, ''));
    const script = scripts.get(id);
    const step = script ? script.steps[Math.min(script.served++, script.steps.length - 1)]! : undefined;
    res.writeHead(step?.status ?? (step ? 200 : 404), { 'content-type': 'application/json' });
    res.end(JSON.stringify(step?.body ?? { status: 'unknown' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    script: (id, steps) => void scripts.set(id, { steps, served: 0 }),
    polls: (id) => scripts.get(id)?.served ?? 0,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const TEST_KIND = 'test-render';

/**
 * A job kind for tests only: asks the loopback upstream above, bills the job's `credits`
 * detail at FASHN's credit price on success and nothing (a zero-cost entry) on failure.
 */
export function testJobDriver(baseUrl: string, limits: Partial<JobDriver> = {}): JobDriver {
  return {
    kind: TEST_KIND,
    pollIntervalSeconds: 2,
    maxWaitSeconds: 600,
    ...limits,
    async poll(job, deps) {
      const response = await deps.send({
        url: `${baseUrl}/jobs/${encodeURIComponent(job.upstreamJobId)}`,
        method: 'GET',
        headers: { accept: 'application/json' },
        signal: deps.signal,
      });
      const text = await response.text();
      if (response.status === 429 || response.status >= 500) {
        throw new UpstreamError(
          upstreamFailure('overload', `upstream ${response.status}`, { status: response.status }),
        );
      }
      if (response.status >= 400) {
        throw new UpstreamError(
          upstreamFailure('bad_request', `upstream ${response.status}`, { status: response.status }),
        );
      }
      const body = JSON.parse(text) as UpstreamStep['body'];
      if (body.status === 'done') return { phase: 'succeeded', upstreamStatus: 'done', result: { url: body.url } };
      if (body.status === 'error') {
        return {
          phase: 'failed',
          upstreamStatus: 'error',
          error: { name: 'upstream_failed', message: body.message ?? '' },
        };
      }
      return { phase: body.status === 'queued' ? 'queued' : 'running', upstreamStatus: body.status };
    },
    usage(job, end) {
      const succeeded = end.phase === 'succeeded';
      return {
        model: 'fashn/credit',
        provider: 'fashn',
        unit: 'credits',
        quantity: succeeded ? Number(job.details?.['credits'] ?? 1) : 0,
        status: 200,
        outcome: succeeded ? 'ok' : 'job_failed',
      };
    },
  };
}

/** The status step's dependencies over the real repository and ledger, with the given drivers. */
export function stepDeps(drivers: readonly JobDriver[], now: () => Date = () => new Date()): JobStepDeps {
  return {
    drivers: jobDrivers(drivers),
    jobs: { getOwnedJob, takePollLease, recordProgress, endJob },
    recordUsage,
    // These drivers call their own upstream on loopback, not a platform provider's.
    upstream: { endpoint: async () => undefined, send, signal: AbortSignal.timeout(10_000) },
    now,
  };
}

/**
 * The Notify step's dependencies over the embedded DynamoDB, for machines whose jobs carry no
 * webhook: any delivery it would attempt fails the test.
 */
export function notifyDeps(overrides: Partial<JobNotifyDeps> = {}): JobNotifyDeps {
  return {
    jobs: { getOwnedJob, recordWebhookDelivery },
    views: {},
    signingSecrets: async () => ['whsec_dGVzdA=='],
    deliver: async () => {
      throw new Error('no webhook delivery was expected');
    },
    now: () => new Date(),
    log: () => undefined,
    ...overrides,
  };
}

/** The embedded DynamoDB (jobs, usage and cache tables), and the environment the store reads. */
export async function startJobTables(prefix: string): Promise<{ stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const db: LocalDynamoDb = await startLocalDynamoDb({ dataDir, tablePrefix: prefix });
  const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
  // A caller's own job is read under its tenant session (lambdas/jobs/job-repository.ts readOwnJob).
  const sts = await startStsStandIn({
    roleArn: LOCAL_TENANT_ACCESS_ROLE_ARN,
    sessionTag: TENANT_SESSION_TAG_KEY,
    maxSessionSeconds: TENANT_MAX_SESSION_SECONDS,
    credentials,
  });
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: db.endpoint,
    AWS_ENDPOINT_URL_STS: sts.url,
    TENANT_ACCESS_ROLE_ARN: LOCAL_TENANT_ACCESS_ROLE_ARN,
    JOBS_TABLE: db.tableNames.jobs,
    USAGE_TABLE: db.tableNames.usage,
    CACHE_TABLE: db.tableNames.cache,
    STORE_WRITE_BEHIND_MS: '0',
  });
  return {
    stop: async () => {
      await Promise.all([db.stop(), sts.close()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * How many ledger entries an account has, and what they cost, over all time: read from its
 * ledger shards (no aggregator runs here to derive totals).
 */
export async function meteredFor(accountId: string): Promise<{ requests: number; costMicroUsd: number }> {
  const metered = { requests: 0, costMicroUsd: 0 };
  await visitLedgerShards(
    { db: dynamo(), table: tableName('usage') },
    accountId,
    0,
    Date.now() + 86_400_000,
    (item) => {
      metered.requests++;
      metered.costMicroUsd += Number(item['costMicroUsd']?.N);
    },
  );
  return metered;
}

let serial = 0;

/** A queued job of the test kind, as startJob would write it (ids unique per call). */
export function testJobRecord(fields: Partial<JobRecord> = {}, now = new Date()): JobRecord {
  serial++;
  return {
    jobId: `job_test${serial}_${process.pid}`,
    kind: TEST_KIND,
    accountId: 'acct-a',
    keyId: 'key-a',
    requestId: `req-${serial}-${process.pid}`,
    route: 'test-jobs',
    provider: 'fashn',
    model: 'tryon-v1.6',
    upstreamJobId: `up-${serial}`,
    phase: 'queued',
    details: { credits: 2 },
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    polls: 0,
    expiresAt: Math.floor(now.getTime() / 1000) + JOB_TTL_SECONDS,
    ...fields,
  };
}
