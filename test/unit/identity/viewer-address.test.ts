import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AwsJsonServer } from '../../../local/standins/aws-json-server.js';
import { startSecretsManagerStandIn } from '../../../local/standins/secrets-manager.js';
import { EDGE_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '../../../lambdas/identity/edge-headers.js';
import { viewerAddress } from '../../../lambdas/identity/viewer-address.js';
import { awsJsonCall } from '../../support/aws-json-call.js';

/**
 * Which address a sign-in is counted by, against the Secrets Manager stand-in: the viewer's only
 * when the edge secret proves the distribution sent it. (Over HTTP through the runtime:
 * test/integration/login-throttle.test.ts.)
 */
let dataDir: string;
let standIn: AwsJsonServer;
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const SECRET = 'edge-secret-value-0123456789abcdefghijklmnopqrstuv';
const EDGE = '198.51.100.9';

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'viewer-address-'));
  standIn = await startSecretsManagerStandIn({ dataDir, credentials });
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: standIn.url,
  });
  await awsJsonCall(standIn.url, 'secretsmanager.CreateSecret', { Name: 'edge', SecretString: SECRET }, credentials);
});
afterAll(async () => {
  await standIn.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const from = (headers: Record<string, string>) => ({ sourceIp: EDGE, headers });
const proven = (viewer: string, secret = SECRET) =>
  from({ [EDGE_SECRET_HEADER]: secret, [VIEWER_ADDRESS_HEADER]: viewer });

test('the edge secret and an address: the viewer, IPv4 or IPv6', async () => {
  expect(await viewerAddress(proven('203.0.113.7'), 'edge')).toBe('203.0.113.7');
  expect(await viewerAddress(proven(' 2001:db8::7 '), 'edge')).toBe('2001:db8::7');
});

test.each([
  ['a wrong secret', proven('203.0.113.7', `${SECRET}x`)],
  ['a secret one character short', proven('203.0.113.7', SECRET.slice(0, -1))],
  ['no secret', from({ [VIEWER_ADDRESS_HEADER]: '203.0.113.7' })],
  ['no address', from({ [EDGE_SECRET_HEADER]: SECRET })],
  ['a name, not an address', proven('viewer.example.com')],
  ['two addresses', proven('203.0.113.7, 203.0.113.8')],
])('%s: the source address', async (_case, req) => {
  expect(await viewerAddress(req, 'edge')).toBe(EDGE);
});

test('no edge secret configured (no distribution): the source address, whatever is claimed', async () => {
  expect(await viewerAddress(proven('203.0.113.7'), undefined)).toBe(EDGE);
});

test('a secret that cannot be read counts the source address instead of failing the sign-in', async () => {
  await expect(viewerAddress(proven('203.0.113.7'), 'never-created')).resolves.toBe(EDGE);
  // ...for a while, without asking again; the configured secret is not believed meanwhile either.
  await expect(viewerAddress(proven('203.0.113.7'), 'edge')).resolves.toBe(EDGE);
});
