import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { getOwnedJob } from '../../lambdas/jobs/job-repository.js';
import { newJobId } from '../../lambdas/jobs/start-job.js';
import { listArenaSessions } from '../../lambdas/store/arena-sessions.js';
import { getSessionMeta, readSessionEvents } from '../../lambdas/store/session-log.js';
import { createDynamoDb } from '../../lambdas/store/dynamodb-client.js';
import { readProviderKeySecret } from '../../lambdas/store/provider-key-secrets.js';
import { createAssumeRole } from '../../lambdas/store/sts-client.js';
import { TenantCredentials } from '../../lambdas/store/tenant-credentials.js';
import { summarizeUsage } from '../../lambdas/usage/usage-ledger.js';
import { LOCAL_TENANT_ACCESS_ROLE_ARN, PROVIDER_KEY_SECRET_PREFIX } from '../../local/runtime-config.js';
import { readStandInCredentials } from '../../local/standin-credentials.js';
import { useGateway } from './support/gateway-fixture.js';
import { bearer, call } from './support/http.js';
import { provisionAccount, type TestAccount } from './support/provisioning.js';

/**
 * The tenant boundary held by the stand-ins, not only by the code: the routes that read under a
 * tenant session still answer, and the store's own reads, given the wrong account under a
 * session, are refused as IAM would refuse them.
 */
const local = useGateway({
  account: 'tenant-a',
  key: { via: 'admin', body: { type: 'secret' } },
  simulator: 'openai',
  runtimeTables: true,
});

let other: TestAccount;
let ownKeyId: string;
let otherKeyId: string;
const OWN_KEY = 'sk-tenant-a-own-openai-key-1234';

beforeAll(async () => {
  other = await provisionAccount(local.gateway, 'tenant-b');
  const store = async (account: TestAccount, apiKey: string) => {
    const created = await call(local.gateway.url('/api/v1/provider-keys'), {
      headers: account.session,
      body: { provider: 'openai', slug: 'mine', apiKey },
    });
    expect(created.status).toBe(201);
    return created.body.data.id as string;
  };
  ownKeyId = await store(local.account, OWN_KEY);
  otherKeyId = await store(other, 'sk-tenant-b-own-openai-key-5678');
}, 60_000);

/** Account A's tenant session, as a function of the gateway opens it. */
async function sessionOfA() {
  const credentials = readStandInCredentials(local.gateway.dataDir);
  const cache = new TenantCredentials({
    roleArn: LOCAL_TENANT_ACCESS_ROLE_ARN,
    assumeRole: createAssumeRole({
      region: local.gateway.aws.region,
      endpoint: local.gateway.aws.sts,
      credentials: () => credentials,
    }),
  });
  const session = await cache.get(local.account.accountId);
  return {
    db: createDynamoDb({
      region: local.gateway.aws.region,
      endpoint: local.gateway.aws.dynamodb,
      credentials: () => session,
    }),
    secrets: new SecretsManagerClient({
      region: local.gateway.aws.region,
      endpoint: local.gateway.aws.secretsManager,
      credentials: session,
      maxAttempts: 1,
    }),
  };
}

test('the routes that read under tenant sessions answer: own keys used, own usage and sessions listed', async () => {
  await local.simulator.reset();
  const chat = await call(local.gateway.url('/api/v1/chat/completions'), {
    headers: { ...bearer(local.key), 'X-Cache': 'no-cache' },
    body: { model: 'gpt', messages: [{ role: 'user', content: 'whose key?' }] },
  });
  expect(chat.status).toBe(200);
  expect((await local.simulator.requests())[0]!.headers['authorization']).toBe(`Bearer ${OWN_KEY}`);
  const usage = await call(local.gateway.url('/api/v1/usage'), { headers: bearer(local.key) });
  expect(usage.status).toBe(200);
  expect(usage.body.data).toHaveProperty('totalRequests');
  const sessions = await call(local.gateway.url('/api/v1/sessions'), { headers: bearer(local.key) });
  expect(sessions.status).toBe(200);
  expect(sessions.body.data.sessions).toEqual([]);
  const leaderboard = await call(local.gateway.url('/api/v1/arena/leaderboard'), { headers: bearer(local.key) });
  expect([200, 202]).toContain(leaderboard.status);
  // A job's or a session's status is read under the session too: an unknown one is a 404, not a refusal.
  const job = newJobId();
  const fashion = await call(local.gateway.url(`/api/v1/fashion/status/${job}`), { headers: bearer(local.key) });
  expect([fashion.status, fashion.body.error?.code]).toEqual([404, 'NOT_FOUND']);
  const video = await call(local.gateway.url(`/api/v1/media/video/status?task_id=${job}`), {
    headers: bearer(local.key),
  });
  expect(video.status).toBe(404);
  const session = await call(local.gateway.url('/api/v1/sessions/arena-unknown'), { headers: bearer(local.key) });
  expect(session.status).toBe(404);
});

test("under A's session the store reads A's own items, and another account's are refused", async () => {
  const { db, secrets } = await sessionOfA();
  const a = local.account.accountId;
  const b = other.accountId;
  const now = Date.now();

  await expect(summarizeUsage(db, a, now - 86_400_000, now)).resolves.toHaveProperty('requests');
  await expect(summarizeUsage(db, b, now - 86_400_000, now)).rejects.toMatchObject({
    name: 'AccessDeniedException',
  });

  await expect(listArenaSessions(a, 10, undefined, db)).resolves.toEqual({ sessions: [] });
  await expect(listArenaSessions(b, 10, undefined, db)).rejects.toMatchObject({ name: 'AccessDeniedException' });

  // Job records and session logs are keyed by their account: B's are out of the session's reach.
  const jobId = newJobId();
  await expect(getOwnedJob(a, jobId, now, db)).resolves.toBeUndefined();
  await expect(getOwnedJob(b, jobId, now, db)).rejects.toMatchObject({ name: 'AccessDeniedException' });
  await expect(getSessionMeta({ accountId: a, sessionId: 'arena-x' }, now, db)).resolves.toBeUndefined();
  await expect(getSessionMeta({ accountId: b, sessionId: 'arena-x' }, now, db)).rejects.toMatchObject({
    name: 'AccessDeniedException',
  });
  await expect(readSessionEvents({ accountId: b, sessionId: 'arena-x' }, 0, 10, db)).rejects.toMatchObject({
    name: 'AccessDeniedException',
  });

  await expect(readProviderKeySecret(`${PROVIDER_KEY_SECRET_PREFIX}${a}/${ownKeyId}`, secrets)).resolves.toBe(OWN_KEY);
  await expect(readProviderKeySecret(`${PROVIDER_KEY_SECRET_PREFIX}${b}/${otherKeyId}`, secrets)).rejects.toMatchObject(
    { name: 'AccessDeniedException' },
  );
  // Nor anything else in Secrets Manager: the stack's own secrets are not the tenant's.
  await expect(secrets.send(new GetSecretValueCommand({ SecretId: 'gateway/admin-token' }))).rejects.toMatchObject({
    name: 'AccessDeniedException',
  });
  secrets.destroy();
});
