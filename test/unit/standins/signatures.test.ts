import {
  AdminCreateUserCommand,
  AdminInitiateAuthCommand,
  CognitoIdentityProviderClient,
  InitiateAuthCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AwsJsonServer } from '../../../local/standins/aws-json-server.js';
import { startCognitoStandIn } from '../../../local/standins/cognito.js';
import { startSecretsManagerStandIn } from '../../../local/standins/secrets-manager.js';
import { MAX_CLOCK_SKEW_MS, signatureRefusal } from '../../../local/standins/signature-check.js';
import { awsJsonCall, postRaw, signedHeaders } from '../../support/aws-json-call.js';

/**
 * The stand-ins serve only callers that sign with the runtime's credentials (AWS SigV4,
 * checked as AWS checks it), so a process that can reach loopback cannot read the admin
 * token; refusals are AWS's own error shapes. Cognito's sign-in operations stay unsigned, as
 * in AWS.
 */
const credentials = { accessKeyId: 'LOCAEXAMPLEKEYID0001', secretAccessKey: 'the-runtime-secret-key' };
const ADMIN_TOKEN = 'admin-token-value';
const GET_TOKEN = {
  target: 'secretsmanager.GetSecretValue',
  body: JSON.stringify({ SecretId: 'gateway/admin-token' }),
};

let dataDir: string;
let secrets: AwsJsonServer;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'standin-signatures-'));
  secrets = await startSecretsManagerStandIn({ dataDir: join(dataDir, 'secrets'), credentials });
  await awsJsonCall(
    secrets.url,
    'secretsmanager.CreateSecret',
    { Name: 'gateway/admin-token', SecretString: ADMIN_TOKEN },
    credentials,
  );
});
afterAll(async () => {
  await secrets.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function refusal(response: Response): Promise<{ status: number; type: string | null; body: string }> {
  const body = await response.text();
  expect(body).not.toContain(ADMIN_TOKEN);
  const type = response.headers.get('x-amzn-errortype');
  expect((JSON.parse(body) as { __type: string }).__type).toBe(type);
  return { status: response.status, type, body };
}

const signed = (overrides: Partial<Parameters<typeof signedHeaders>[1]> = {}) =>
  signedHeaders(secrets.url, { ...GET_TOKEN, credentials, ...overrides });

describe('the Secrets Manager stand-in', () => {
  test('serves a request signed with the right credentials', async () => {
    const answer = await awsJsonCall(secrets.url, GET_TOKEN.target, { SecretId: 'gateway/admin-token' }, credentials);
    expect(answer['SecretString']).toBe(ADMIN_TOKEN);
  });

  test('serves the AWS SDK client that signs with them', async () => {
    const client = new SecretsManagerClient({ endpoint: secrets.url, region: 'us-east-1', credentials });
    const value = await client.send(new GetSecretValueCommand({ SecretId: 'gateway/admin-token' }));
    client.destroy();
    expect(value.SecretString).toBe(ADMIN_TOKEN);
  });

  test('refuses an unsigned request, whatever its operation', async () => {
    for (const target of [GET_TOKEN.target, 'secretsmanager.RotateSecret', 'secretsmanager.ListSecrets']) {
      const response = await postRaw(
        secrets.url,
        { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': target },
        '{}',
      );
      expect(await refusal(response)).toMatchObject({ status: 400, type: 'MissingAuthenticationTokenException' });
    }
  });

  test('refuses another access key id, and the right one with another secret', async () => {
    const otherKey = await postRaw(
      secrets.url,
      await signed({ credentials: { ...credentials, accessKeyId: 'AKIAOTHERPROCESS0001' } }),
      GET_TOKEN.body,
    );
    expect(await refusal(otherKey)).toMatchObject({ status: 400, type: 'UnrecognizedClientException' });
    const otherSecret = await postRaw(
      secrets.url,
      await signed({ credentials: { ...credentials, secretAccessKey: 'guessed' } }),
      GET_TOKEN.body,
    );
    expect(await refusal(otherSecret)).toMatchObject({ status: 400, type: 'InvalidSignatureException' });
  });

  test('refuses a signed request whose body, target or signature was changed', async () => {
    const headers = await signed();
    const otherBody = JSON.stringify({ SecretId: 'gateway/platform-provider-keys' });
    expect(await refusal(await postRaw(secrets.url, headers, otherBody))).toMatchObject({
      type: 'InvalidSignatureException',
    });
    const otherTarget = { ...headers, 'x-amz-target': 'secretsmanager.DeleteSecret' };
    expect(await refusal(await postRaw(secrets.url, otherTarget, GET_TOKEN.body))).toMatchObject({
      type: 'InvalidSignatureException',
    });
    const flipped = headers['authorization']!.replace(/.$/, (last) => (last === '0' ? '1' : '0'));
    expect(
      await refusal(await postRaw(secrets.url, { ...headers, authorization: flipped }, GET_TOKEN.body)),
    ).toMatchObject({ type: 'InvalidSignatureException' });
    expect(
      await refusal(await postRaw(secrets.url, { ...headers, authorization: 'AWS4-HMAC-SHA256 nonsense' }, '{}')),
    ).toMatchObject({ status: 400, type: 'IncompleteSignatureException' });
  });

  test('refuses a signature made more than 5 minutes before or after now', async () => {
    for (const offset of [-10 * 60_000, 10 * 60_000]) {
      const response = await postRaw(
        secrets.url,
        await signed({ signingDate: new Date(Date.now() + offset) }),
        GET_TOKEN.body,
      );
      const refused = await refusal(response);
      expect(refused).toMatchObject({ status: 400, type: 'InvalidSignatureException' });
      expect(refused.body).toMatch(offset < 0 ? /Signature expired/ : /Signature not yet current/);
    }
  });
});

describe('the signature check', () => {
  const NOW = Date.parse('2026-03-01T12:00:00Z');
  const url = 'http://127.0.0.1:4566/';

  async function checkedAt(signedAt: number) {
    const headers = await signedHeaders(url, { ...GET_TOKEN, credentials, signingDate: new Date(signedAt) });
    return signatureRefusal({ method: 'POST', url: '/', headers, body: Buffer.from(GET_TOKEN.body) }, credentials, NOW);
  }

  test('allows 5 minutes of clock skew either way, to the second, and no more', async () => {
    expect(await checkedAt(NOW)).toBeUndefined();
    expect(await checkedAt(NOW - MAX_CLOCK_SKEW_MS)).toBeUndefined();
    expect(await checkedAt(NOW + MAX_CLOCK_SKEW_MS)).toBeUndefined();
    expect(await checkedAt(NOW - MAX_CLOCK_SKEW_MS - 1000)).toEqual({
      type: 'InvalidSignatureException',
      message: 'Signature expired: 20260301T115459Z is now earlier than 20260301T115500Z (20260301T120000Z - 5 min.)',
    });
    expect((await checkedAt(NOW + MAX_CLOCK_SKEW_MS + 1000))?.message).toMatch(/^Signature not yet current/);
  });

  test('refuses a session token it never issued, and a payload hash that is not the body', async () => {
    const headers = await signedHeaders(url, { ...GET_TOKEN, credentials, signingDate: new Date(NOW) });
    const check = (changed: Record<string, string>, body = GET_TOKEN.body) =>
      signatureRefusal({ method: 'POST', url: '/', headers: changed, body: Buffer.from(body) }, credentials, NOW);
    expect((await check({ ...headers, 'x-amz-security-token': 'token' }))?.type).toBe('UnrecognizedClientException');
    expect(headers['x-amz-content-sha256']).toBeDefined();
    expect((await check(headers, '{"SecretId":"other"}'))?.type).toBe('InvalidSignatureException');
    const { 'x-amz-date': _date, ...undated } = headers;
    expect((await check(undated))?.type).toBe('IncompleteSignatureException');
  });
});

describe('the Cognito stand-in', () => {
  let cognito: AwsJsonServer;
  let signedClient: CognitoIdentityProviderClient;
  const UserPoolId = 'local_SignedPool';

  beforeAll(async () => {
    // Without explicit credentials a stand-in takes its process's, as the SDK beside it does.
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    });
    cognito = await startCognitoStandIn({ dataDir: join(dataDir, 'cognito'), userPoolId: UserPoolId, clientId: 'web' });
    signedClient = new CognitoIdentityProviderClient({ endpoint: cognito.url, region: 'us-east-1', credentials });
  });
  afterAll(async () => {
    signedClient.destroy();
    await cognito.close();
  });

  test('serves admin operations signed with the credentials, and refuses them otherwise', async () => {
    await signedClient.send(new AdminCreateUserCommand({ UserPoolId, Username: 'ada@example.com' }));
    const stranger = new CognitoIdentityProviderClient({
      endpoint: cognito.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIASTRANGER00000001', secretAccessKey: 'x' },
    });
    await expect(
      stranger.send(new AdminCreateUserCommand({ UserPoolId, Username: 'eve@example.com' })),
    ).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
    stranger.destroy();
    const unsigned = await postRaw(
      cognito.url,
      {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'AWSCognitoIdentityProviderService.AdminCreateUser',
      },
      JSON.stringify({ UserPoolId, Username: 'eve@example.com' }),
    );
    expect(await refusal(unsigned)).toMatchObject({ status: 400, type: 'MissingAuthenticationTokenException' });
  });

  test('serves InitiateAuth unsigned, as AWS does, and the admin sign-in only signed', async () => {
    const anonymous = new CognitoIdentityProviderClient({
      endpoint: cognito.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIASTRANGER00000001', secretAccessKey: 'x' },
    });
    const AuthParameters = { USERNAME: 'nobody@example.com', PASSWORD: 'Wrong-password-1' };
    // Reaches the operation (no signature refusal), which the client's flows then refuse.
    await expect(
      anonymous.send(new InitiateAuthCommand({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: 'web', AuthParameters })),
    ).rejects.toMatchObject({
      name: 'InvalidParameterException',
      message: 'USER_PASSWORD_AUTH flow not enabled for this client',
    });
    const adminSignIn = new AdminInitiateAuthCommand({
      UserPoolId,
      ClientId: 'web',
      AuthFlow: 'ADMIN_USER_PASSWORD_AUTH',
      AuthParameters,
    });
    await expect(anonymous.send(adminSignIn)).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
    await expect(signedClient.send(adminSignIn)).rejects.toMatchObject({ name: 'NotAuthorizedException' });
    const unsigned = await postRaw(
      cognito.url,
      {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'AWSCognitoIdentityProviderService.AdminRespondToAuthChallenge',
      },
      JSON.stringify({ UserPoolId, ClientId: 'web', ChallengeName: 'SOFTWARE_TOKEN_MFA', Session: 'x' }),
    );
    expect(await refusal(unsigned)).toMatchObject({ status: 400, type: 'MissingAuthenticationTokenException' });
    anonymous.destroy();
  });
});
