import { setTimeout as sleep } from 'node:timers/promises';
import { useGateway } from './support/gateway-fixture.js';
import { ADMIN_TOKEN_SECRET } from '../../local/runtime-config.js';
import { readStandInCredentials } from '../../local/standin-credentials.js';
import { awsJsonCall } from '../support/aws-json-call.js';
import { bearer, call } from './support/http.js';

/**
 * Rotating the admin token (docs/deployment.md): a new value put in Secrets Manager is accepted
 * at once, not after the functions' five-minute secret cache; the old one then stops working.
 */
const local = useGateway();

const createAccount = (token: string, email: string) =>
  call(local.gateway.url('/api/admin/v1/accounts'), { headers: bearer(token), body: { email, name: 'Rotation' } });

/** As an operator would, with the runtime's own credentials: the stand-in serves no one else. */
async function putAdminToken(value: string): Promise<void> {
  await awsJsonCall(
    local.gateway.aws.secretsManager,
    'secretsmanager.PutSecretValue',
    { SecretId: ADMIN_TOKEN_SECRET, SecretString: value },
    readStandInCredentials(local.gateway.dataDir),
  );
}

test('a rotated admin token works at once, and the old one stops working', async () => {
  const old = local.gateway.info.adminToken;
  expect((await createAccount(old, 'before@example.com')).status).toBe(201);
  // An instance re-reads the token for an unknown one at most every 5 s; the value in hand was
  // read just now, so wait that out once, as a real rotation would not notice.
  await sleep(5_100);
  const rotated = 'rotated-admin-token-0123456789abcdefghijklmnop';
  await putAdminToken(rotated);
  expect((await createAccount(rotated, 'after@example.com')).status).toBe(201);
  const refused = await createAccount(old, 'stale@example.com');
  expect(refused.status).toBe(401);
  expect(refused.body.error.code).toBe('INVALID_API_KEY');
});

test('another process on the machine cannot read the admin token from the local Secrets Manager', async () => {
  const unsigned = await fetch(local.gateway.aws.secretsManager, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': 'secretsmanager.GetSecretValue' },
    body: JSON.stringify({ SecretId: ADMIN_TOKEN_SECRET }),
  });
  expect(unsigned.status).toBe(400);
  expect(unsigned.headers.get('x-amzn-errortype')).toBe('MissingAuthenticationTokenException');
  expect(await unsigned.text()).not.toContain(local.gateway.info.adminToken);
  await expect(
    awsJsonCall(
      local.gateway.aws.secretsManager,
      'secretsmanager.GetSecretValue',
      { SecretId: ADMIN_TOKEN_SECRET },
      { accessKeyId: 'local', secretAccessKey: 'local' },
    ),
  ).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
});
