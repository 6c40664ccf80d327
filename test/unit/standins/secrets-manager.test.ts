import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  ListSecretsCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AwsJsonServer } from '../../../local/standins/aws-json-server.js';
import { startSecretsManagerStandIn } from '../../../local/standins/secrets-manager.js';
import { postRaw, signedHeaders } from '../../support/aws-json-call.js';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

let dataDir: string;
let server: AwsJsonServer | undefined;
let client: SecretsManagerClient;
let clock = Date.parse('2026-03-01T12:00:00Z');

async function start(): Promise<void> {
  server = await startSecretsManagerStandIn({ dataDir, now: () => clock, credentials });
  client = new SecretsManagerClient({ endpoint: server.url, region: 'us-east-1', credentials });
}

async function stop(): Promise<void> {
  client?.destroy();
  await server?.close();
  server = undefined;
}

async function errorOf(promise: Promise<unknown>): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to fail');
}

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sm-standin-'));
  await start();
});

afterEach(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('creates a secret and reads it by name, ARN and partial ARN', async () => {
  const created = await client.send(
    new CreateSecretCommand({
      Name: 'gateway/admin-token',
      SecretString: 's3cret',
      KmsKeyId: 'alias/ignored',
      Description: 'admin token',
      Tags: [{ Key: 'app', Value: 'gateway' }],
    }),
  );
  expect(created.ARN).toMatch(/^arn:aws:secretsmanager:local:000000000000:secret:gateway\/admin-token-[A-Za-z0-9]{6}$/);
  expect(created.Name).toBe('gateway/admin-token');
  expect(created.VersionId).toBeDefined();

  for (const id of ['gateway/admin-token', created.ARN as string, (created.ARN as string).slice(0, -7)]) {
    const value = await client.send(new GetSecretValueCommand({ SecretId: id }));
    expect(value.SecretString).toBe('s3cret');
    expect(value.ARN).toBe(created.ARN);
    expect(value.VersionStages).toEqual(['AWSCURRENT']);
    expect(value.CreatedDate).toBeInstanceOf(Date);
  }
});

test('binary secrets round-trip', async () => {
  await client.send(new CreateSecretCommand({ Name: 'bin', SecretBinary: new Uint8Array([0, 1, 254, 255]) }));
  const value = await client.send(new GetSecretValueCommand({ SecretId: 'bin' }));
  expect(Array.from(value.SecretBinary ?? [])).toEqual([0, 1, 254, 255]);
  expect(value.SecretString).toBeUndefined();
});

test('creating an existing name fails with ResourceExistsException', async () => {
  await client.send(new CreateSecretCommand({ Name: 'dup', SecretString: 'a' }));
  const err = await errorOf(client.send(new CreateSecretCommand({ Name: 'dup', SecretString: 'b' })));
  expect(err.name).toBe('ResourceExistsException');
  expect(err.$metadata?.httpStatusCode).toBe(400);
});

test('invalid names and missing parameters fail with InvalidParameterException', async () => {
  expect((await errorOf(client.send(new CreateSecretCommand({ Name: 'bad name', SecretString: 'x' })))).name).toBe(
    'InvalidParameterException',
  );
  await client.send(new CreateSecretCommand({ Name: 'p' }));
  expect((await errorOf(client.send(new PutSecretValueCommand({ SecretId: 'p' })))).name).toBe(
    'InvalidParameterException',
  );
});

test('unknown secrets fail with ResourceNotFoundException', async () => {
  const err = await errorOf(client.send(new GetSecretValueCommand({ SecretId: 'nope' })));
  expect(err.name).toBe('ResourceNotFoundException');
  expect(err.message).toBe("Secrets Manager can't find the specified secret.");
  expect((await errorOf(client.send(new DescribeSecretCommand({ SecretId: 'nope' })))).name).toBe(
    'ResourceNotFoundException',
  );
  expect((await errorOf(client.send(new PutSecretValueCommand({ SecretId: 'nope', SecretString: 'x' })))).name).toBe(
    'ResourceNotFoundException',
  );
  expect((await errorOf(client.send(new DeleteSecretCommand({ SecretId: 'nope' })))).name).toBe(
    'ResourceNotFoundException',
  );
});

test('a secret created without a value has no current version to read', async () => {
  await client.send(new CreateSecretCommand({ Name: 'empty' }));
  const err = await errorOf(client.send(new GetSecretValueCommand({ SecretId: 'empty' })));
  expect(err.name).toBe('ResourceNotFoundException');
});

test('PutSecretValue makes a new current version and keeps the previous one', async () => {
  const created = await client.send(new CreateSecretCommand({ Name: 'rotating', SecretString: 'v1' }));
  const put = await client.send(new PutSecretValueCommand({ SecretId: 'rotating', SecretString: 'v2' }));
  expect(put.VersionId).not.toBe(created.VersionId);
  expect(put.VersionStages).toEqual(['AWSCURRENT']);
  expect((await client.send(new GetSecretValueCommand({ SecretId: 'rotating' }))).SecretString).toBe('v2');
  const previous = await client.send(new GetSecretValueCommand({ SecretId: 'rotating', VersionStage: 'AWSPREVIOUS' }));
  expect(previous.SecretString).toBe('v1');
  const described = await client.send(new DescribeSecretCommand({ SecretId: 'rotating' }));
  expect(described.VersionIdsToStages).toEqual({
    [created.VersionId as string]: ['AWSPREVIOUS'],
    [put.VersionId as string]: ['AWSCURRENT'],
  });
});

test('PutSecretValue with a reused ClientRequestToken is idempotent for the same value only', async () => {
  await client.send(new CreateSecretCommand({ Name: 'tok', SecretString: 'v1' }));
  const token = '11111111-2222-3333-4444-555555555555';
  const first = await client.send(
    new PutSecretValueCommand({ SecretId: 'tok', SecretString: 'v2', ClientRequestToken: token }),
  );
  const again = await client.send(
    new PutSecretValueCommand({ SecretId: 'tok', SecretString: 'v2', ClientRequestToken: token }),
  );
  expect(again.VersionId).toBe(first.VersionId);
  const err = await errorOf(
    client.send(new PutSecretValueCommand({ SecretId: 'tok', SecretString: 'v3', ClientRequestToken: token })),
  );
  expect(err.name).toBe('ResourceExistsException');
});

test('DescribeSecret reports metadata but never the value', async () => {
  const created = await client.send(
    new CreateSecretCommand({
      Name: 'meta',
      SecretString: 'hidden',
      Description: 'd',
      KmsKeyId: 'alias/k',
      Tags: [{ Key: 'a', Value: 'b' }],
    }),
  );
  const described = await client.send(new DescribeSecretCommand({ SecretId: created.ARN }));
  expect(described).toMatchObject({
    ARN: created.ARN,
    Name: 'meta',
    Description: 'd',
    KmsKeyId: 'alias/k',
    Tags: [{ Key: 'a', Value: 'b' }],
  });
  expect(described.CreatedDate?.getTime()).toBe(clock);
  expect(described.DeletedDate).toBeUndefined();
  expect(JSON.stringify(described)).not.toContain('hidden');
});

test('force-deleted secrets are gone and the name can be reused', async () => {
  await client.send(new CreateSecretCommand({ Name: 'gone', SecretString: 'x' }));
  const deleted = await client.send(new DeleteSecretCommand({ SecretId: 'gone', ForceDeleteWithoutRecovery: true }));
  expect(deleted.Name).toBe('gone');
  expect((await errorOf(client.send(new GetSecretValueCommand({ SecretId: 'gone' })))).name).toBe(
    'ResourceNotFoundException',
  );
  await client.send(new CreateSecretCommand({ Name: 'gone', SecretString: 'y' }));
  expect((await client.send(new GetSecretValueCommand({ SecretId: 'gone' }))).SecretString).toBe('y');
});

test('secrets in a recovery window are unreadable, then disappear when it ends', async () => {
  await client.send(new CreateSecretCommand({ Name: 'window', SecretString: 'x' }));
  const deleted = await client.send(new DeleteSecretCommand({ SecretId: 'window', RecoveryWindowInDays: 7 }));
  expect(deleted.DeletionDate?.getTime()).toBe(clock + 7 * 86_400_000);

  expect((await errorOf(client.send(new GetSecretValueCommand({ SecretId: 'window' })))).name).toBe(
    'InvalidRequestException',
  );
  expect((await errorOf(client.send(new PutSecretValueCommand({ SecretId: 'window', SecretString: 'y' })))).name).toBe(
    'InvalidRequestException',
  );
  expect((await errorOf(client.send(new CreateSecretCommand({ Name: 'window', SecretString: 'y' })))).name).toBe(
    'InvalidRequestException',
  );
  expect((await client.send(new DescribeSecretCommand({ SecretId: 'window' }))).DeletedDate?.getTime()).toBe(clock);

  clock += 7 * 86_400_000;
  expect((await errorOf(client.send(new GetSecretValueCommand({ SecretId: 'window' })))).name).toBe(
    'ResourceNotFoundException',
  );
});

test('DeleteSecret validates its options', async () => {
  await client.send(new CreateSecretCommand({ Name: 'opts', SecretString: 'x' }));
  const both = await errorOf(
    client.send(
      new DeleteSecretCommand({ SecretId: 'opts', ForceDeleteWithoutRecovery: true, RecoveryWindowInDays: 7 }),
    ),
  );
  expect(both.name).toBe('InvalidParameterException');
  const short = await errorOf(client.send(new DeleteSecretCommand({ SecretId: 'opts', RecoveryWindowInDays: 3 })));
  expect(short.name).toBe('InvalidParameterException');
});

test('ListSecrets pages, filters by name prefix and hides planned deletions', async () => {
  for (const name of ['app/a', 'app/b', 'app/c', 'other']) {
    await client.send(new CreateSecretCommand({ Name: name, SecretString: name }));
    clock += 1000;
  }
  await client.send(new DeleteSecretCommand({ SecretId: 'app/c' }));

  const first = await client.send(new ListSecretsCommand({ MaxResults: 2 }));
  expect(first.SecretList?.map((s) => s.Name)).toEqual(['app/a', 'app/b']);
  const second = await client.send(new ListSecretsCommand({ MaxResults: 2, NextToken: first.NextToken }));
  expect(second.SecretList?.map((s) => s.Name)).toEqual(['other']);
  expect(second.NextToken).toBeUndefined();

  const filtered = await client.send(
    new ListSecretsCommand({ Filters: [{ Key: 'name', Values: ['app/'] }], IncludePlannedDeletion: true }),
  );
  expect(filtered.SecretList?.map((s) => s.Name)).toEqual(['app/a', 'app/b', 'app/c']);
});

test('secrets survive a restart over the same data directory, written atomically', async () => {
  const created = await client.send(new CreateSecretCommand({ Name: 'kept', SecretString: 'v1' }));
  await client.send(new PutSecretValueCommand({ SecretId: 'kept', SecretString: 'v2' }));
  await client.send(new CreateSecretCommand({ Name: 'dropped', SecretString: 'x' }));
  await client.send(new DeleteSecretCommand({ SecretId: 'dropped', ForceDeleteWithoutRecovery: true }));
  await stop();

  expect(readdirSync(dataDir)).toEqual(['secrets-manager.json']);
  expect(statSync(join(dataDir, 'secrets-manager.json')).mode & 0o777).toBe(0o600);
  expect(JSON.parse(readFileSync(join(dataDir, 'secrets-manager.json'), 'utf8')).version).toBe(1);

  await start();
  const value = await client.send(new GetSecretValueCommand({ SecretId: created.ARN }));
  expect(value.SecretString).toBe('v2');
  expect((await errorOf(client.send(new GetSecretValueCommand({ SecretId: 'dropped' })))).name).toBe(
    'ResourceNotFoundException',
  );
  expect((await errorOf(client.send(new CreateSecretCommand({ Name: 'kept', SecretString: 'z' })))).name).toBe(
    'ResourceExistsException',
  );
});

test('unknown operations and malformed bodies get AWS error shapes', async () => {
  const post = async (target: string, body: string) =>
    postRaw(server!.url, await signedHeaders(server!.url, { target, body, credentials }), body);
  const unknown = await post('secretsmanager.RotateSecret', '{}');
  expect(unknown.status).toBe(400);
  expect(unknown.headers.get('x-amzn-errortype')).toBe('UnknownOperationException');
  expect(((await unknown.json()) as { __type: string }).__type).toBe('UnknownOperationException');
  const wrongService = await post('AWSCognitoIdentityProviderService.GetSecretValue', '{}');
  expect(wrongService.headers.get('x-amzn-errortype')).toBe('UnknownOperationException');
  const malformed = await post('secretsmanager.GetSecretValue', '{not json');
  expect(malformed.status).toBe(400);
  expect(((await malformed.json()) as { __type: string }).__type).toBe('SerializationException');
});
