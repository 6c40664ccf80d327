import { CreateSecretCommand, GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDynamoDb, type DynamoDb } from '../../../lambdas/store/dynamodb-client.js';
import {
  createAssumeRole,
  type AssumeRoleRequest,
  type SessionCredentials,
} from '../../../lambdas/store/sts-client.js';
import { TENANT_MAX_SESSION_SECONDS, TENANT_SECRET_READ } from '../../../lib/tenant-access-policy.js';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../local/dynamodb.js';
import type { AwsJsonServer } from '../../../local/standins/aws-json-server.js';
import { startSecretsManagerStandIn } from '../../../local/standins/secrets-manager.js';
import { startStsStandIn, type StsStandIn } from '../../../local/standins/sts.js';
import { issueTenantSession, openTenantSession } from '../../../local/standins/tenant-sessions.mjs';

/**
 * The stand-ins enforce on tenant sessions exactly what the tenant-access role's policy allows
 * (lib/tenant-access-policy.ts), with AWS's refusals: the STS stand-in's trust, the Secrets
 * Manager stand-in's resource tag, the embedded DynamoDB's leading keys.
 */

const master = { accessKeyId: 'LOCATESTKEY', secretAccessKey: 'test-master-secret' };
const ROLE = 'arn:aws:iam::000000000000:role/gateway-tenant-access';
const PREFIX = 'gateway/provider-keys/';
let dir: string;
let sts: StsStandIn;
let secrets: AwsJsonServer;
let dynamodb: LocalDynamoDb;
let owner: SecretsManagerClient;
let ownerDb: DynamoDb;

const assume = (request: Partial<AssumeRoleRequest> = {}) =>
  createAssumeRole({ region: 'us-east-1', endpoint: sts.url, credentials: () => master, maxAttempts: 1 })({
    roleArn: ROLE,
    sessionName: 'tenant-acc_a',
    durationSeconds: 900,
    tags: { account: 'acc_a' },
    ...request,
  });
const secretsAs = (credentials: SessionCredentials) =>
  new SecretsManagerClient({ endpoint: secrets.url, region: 'us-east-1', credentials, maxAttempts: 1 });
const dynamoAs = (credentials: SessionCredentials) =>
  createDynamoDb({ endpoint: dynamodb.endpoint, region: 'us-east-1', credentials: () => credentials, maxAttempts: 1 });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => ({ name: 'resolved', message: '' }),
    (error: Error) => ({ name: error.name, message: error.message }),
  );
const query = (db: DynamoDb, table: string, pk: string) =>
  db.query({
    TableName: table,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': 'pk' },
    ExpressionAttributeValues: { ':pk': { S: pk } },
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tenant-sessions-'));
  sts = await startStsStandIn({
    roleArn: ROLE,
    sessionTag: 'account',
    maxSessionSeconds: TENANT_MAX_SESSION_SECONDS,
    credentials: master,
  });
  secrets = await startSecretsManagerStandIn({
    dataDir: join(dir, 'secrets'),
    credentials: master,
    tenantReads: { namePrefix: PREFIX, resourceTag: TENANT_SECRET_READ.resourceTag, sessionTag: 'account' },
  });
  dynamodb = await startLocalDynamoDb({
    dataDir: join(dir, 'dynamodb'),
    tablePrefix: 'tenant',
    tenantSessions: { credentials: master },
  });
  owner = new SecretsManagerClient({ endpoint: secrets.url, region: 'us-east-1', credentials: master });
  ownerDb = createDynamoDb({ endpoint: dynamodb.endpoint, region: 'us-east-1', credentials: () => master });
  for (const account of ['acc_a', 'acc_b']) {
    await owner.send(
      new CreateSecretCommand({
        Name: `${PREFIX}${account}/k1`,
        SecretString: `key-of-${account}`,
        Tags: [{ Key: 'gateway:account', Value: account }],
      }),
    );
    await ownerDb.putItem({
      TableName: dynamodb.tableNames.usage,
      Item: { pk: { S: `ACCOUNT#${account}#TOTALS` }, sk: { S: 'DAY#2026-11-27#m#r#-' } },
    });
  }
  await owner.send(new CreateSecretCommand({ Name: `${PREFIX}acc_a/untagged`, SecretString: 'no tag' }));
}, 60_000);

afterAll(async () => {
  owner?.destroy();
  await Promise.allSettled([sts?.close(), secrets?.close(), dynamodb?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('the STS stand-in: the trust of the tenant-access role', () => {
  test('AssumeRole with the account tag alone gives 15-minute credentials that carry the tag', async () => {
    const credentials = await assume();
    expect(credentials.accessKeyId).toMatch(/^ASIA[A-Z2-7]{16}$/);
    expect(credentials.expiresAt - Date.now()).toBeGreaterThan(890_000);
    expect(openTenantSession(master, credentials.accessKeyId, credentials.sessionToken)).toMatchObject({
      tags: { account: 'acc_a' },
      arn: 'arn:aws:sts::000000000000:assumed-role/gateway-tenant-access/tenant-acc_a',
    });
    expect(sts.issued()).toBeGreaterThan(0);
  });

  test.each<[string, Partial<AssumeRoleRequest>, string]>([
    ['no session tag', { tags: {} }, 'AccessDenied'],
    ['another tag beside it', { tags: { account: 'acc_a', team: 'x' } }, 'AccessDenied'],
    ['an empty account tag', { tags: { account: '' } }, 'AccessDenied'],
    ['another role', { roleArn: 'arn:aws:iam::000000000000:role/admin' }, 'AccessDenied'],
    ['longer than the role allows', { durationSeconds: TENANT_MAX_SESSION_SECONDS + 1 }, 'ValidationError'],
    ['shorter than STS allows', { durationSeconds: 899 }, 'ValidationError'],
  ])('%s is refused (%s)', async (_name, request, code) => {
    expect((await failure(assume(request))).name).toBe(code);
  });

  test('a request not signed with the runtime credentials is refused', async () => {
    const stranger = createAssumeRole({
      region: 'us-east-1',
      endpoint: sts.url,
      credentials: () => ({ accessKeyId: master.accessKeyId, secretAccessKey: 'wrong' }),
      maxAttempts: 1,
    });
    const refused = await failure(
      stranger({ roleArn: ROLE, sessionName: 'tenant-acc_a', durationSeconds: 900, tags: { account: 'acc_a' } }),
    );
    expect(refused.name).toBe('InvalidSignatureException');
  });

  test('a tenant session cannot chain into another one', async () => {
    const session = await assume();
    const chained = createAssumeRole({
      region: 'us-east-1',
      endpoint: sts.url,
      credentials: () => session,
      maxAttempts: 1,
    });
    const refused = await failure(
      chained({ roleArn: ROLE, sessionName: 'tenant-acc_b', durationSeconds: 900, tags: { account: 'acc_b' } }),
    );
    expect(refused.name).toBe('AccessDenied');
  });
});

describe('Secrets Manager: a tenant session reads only secrets tagged with its account', () => {
  test("its own account's key is read; another account's, an untagged one and an absent one are refused", async () => {
    const client = secretsAs(await assume());
    const read = (id: string) => client.send(new GetSecretValueCommand({ SecretId: id }));
    expect((await read(`${PREFIX}acc_a/k1`)).SecretString).toBe('key-of-acc_a');
    for (const id of [`${PREFIX}acc_b/k1`, `${PREFIX}acc_a/untagged`, `${PREFIX}acc_a/absent`]) {
      const refused = await failure(read(id));
      expect(refused.name).toBe('AccessDeniedException');
      expect(refused.message).toMatch(
        /^User: arn:aws:sts::000000000000:assumed-role\/gateway-tenant-access\/tenant-acc_a is not authorized to perform: secretsmanager:GetSecretValue on resource: /,
      );
    }
    client.destroy();
  });

  test('a tenant session may do nothing else there', async () => {
    const client = secretsAs(await assume());
    const refused = await failure(
      client.send(new CreateSecretCommand({ Name: `${PREFIX}acc_a/new`, SecretString: 'x' })),
    );
    expect(refused.name).toBe('AccessDeniedException');
    client.destroy();
  });

  test('a forged or expired session is refused as AWS refuses it', async () => {
    const real = await assume();
    const forged = { ...real, sessionToken: real.sessionToken.replace(/\.[^.]+$/, '.AAAA') };
    expect(
      (await failure(secretsAs(forged).send(new GetSecretValueCommand({ SecretId: `${PREFIX}acc_a/k1` })))).name,
    ).toBe('UnrecognizedClientException');
    const old = issueTenantSession(master, {
      roleArn: ROLE,
      sessionName: 'tenant-acc_a',
      tags: { account: 'acc_a' },
      durationSeconds: 900,
      now: Date.now() - 901_000,
    });
    const expired = await failure(
      secretsAs({ ...old }).send(new GetSecretValueCommand({ SecretId: `${PREFIX}acc_a/k1` })),
    );
    expect(expired.name).toBe('ExpiredTokenException');
  });
});

describe("the embedded DynamoDB: a tenant session reads only its account's partitions", () => {
  test('its usage partitions are read; another account’s are refused with AccessDeniedException', async () => {
    const db = dynamoAs(await assume());
    const own = await query(db, dynamodb.tableNames.usage, 'ACCOUNT#acc_a#TOTALS');
    expect(own.Items).toHaveLength(1);
    for (const pk of ['ACCOUNT#acc_b#TOTALS', 'ACCOUNT#acc_a', 'ACCOUNT#acc_ab#TOTALS']) {
      const refused = await failure(query(db, dynamodb.tableNames.usage, pk));
      expect(refused).toEqual({
        name: 'AccessDeniedException',
        message: `User: arn:aws:sts::000000000000:assumed-role/gateway-tenant-access/tenant-acc_a is not authorized to perform: dynamodb:Query on resource: arn:aws:dynamodb:us-east-1:000000000000:table/${dynamodb.tableNames.usage} because no identity-based policy allows the dynamodb:Query action`,
      });
    }
  });

  test("the jobs table: its own account's items, jobs and session logs only, never another's nor an index", async () => {
    const db = dynamoAs(await assume());
    const jobs = dynamodb.tableNames.jobs;
    for (const pk of ['ACCOUNT#acc_a', 'ACCOUNT#acc_a#JOB#job_1', 'ACCOUNT#acc_a#ARENA_SESSION#arena-1'])
      await expect(db.getItem({ TableName: jobs, Key: { pk: { S: pk }, sk: { S: 'META' } } })).resolves.toBeDefined();
    for (const pk of [
      'ACCOUNT#acc_b',
      'ACCOUNT#acc_b#JOB#job_1',
      'ACCOUNT#acc_b#ARENA_SESSION#arena-1',
      'ACCOUNT#acc_ab#JOB#job_1',
      'JOB#job_1',
      'ARENA_SESSION#arena-1',
    ])
      expect((await failure(db.getItem({ TableName: jobs, Key: { pk: { S: pk }, sk: { S: 'META' } } }))).name).toBe(
        'AccessDeniedException',
      );
    const onIndex = await failure(
      db.query({
        TableName: jobs,
        IndexName: 'owner',
        KeyConditionExpression: 'ownerPk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'ACCOUNT#acc_a' } },
      }),
    );
    expect(onIndex.name).toBe('AccessDeniedException');
  });

  test('only the reads the policy names: no write, no scan, no other table, and a batch is all or nothing', async () => {
    const db = dynamoAs(await assume());
    const refusals = await Promise.all([
      failure(
        db.putItem({
          TableName: dynamodb.tableNames.usage,
          Item: { pk: { S: 'ACCOUNT#acc_a#TOTALS' }, sk: { S: 'x' } },
        }),
      ),
      failure(db.request('Scan', { TableName: dynamodb.tableNames.usage })),
      failure(
        db.getItem({
          TableName: dynamodb.tableNames.identity,
          Key: { pk: { S: 'ACCOUNT#acc_a' }, sk: { S: 'PROFILE' } },
        }),
      ),
      failure(
        db.batchGetItem({
          RequestItems: {
            [dynamodb.tableNames.jobs]: {
              Keys: [
                { pk: { S: 'ACCOUNT#acc_a' }, sk: { S: 'ARENA_STATS' } },
                { pk: { S: 'ACCOUNT#acc_b' }, sk: { S: 'ARENA_STATS' } },
              ],
            },
          },
        }),
      ),
    ]);
    expect(refusals.map((refusal) => refusal.name)).toEqual(Array(4).fill('AccessDeniedException'));
  });

  test('calls without a session token are served as before (the function role)', async () => {
    expect((await query(ownerDb, dynamodb.tableNames.usage, 'ACCOUNT#acc_b#TOTALS')).Items).toHaveLength(1);
  });
});
