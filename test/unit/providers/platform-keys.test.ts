import { createServer, request, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { AwsJsonServer } from '../../../local/standins/aws-json-server.js';
import { startSecretsManagerStandIn } from '../../../local/standins/secrets-manager.js';
import { readConfiguration } from '../../../lambdas/config/configuration.js';
import { configuredProviders } from '../../../lambdas/providers/provider-config.js';
import { awsJsonCall } from '../../support/aws-json-call.js';
import { withLoopbackKeepAlive } from '../../../local/loopback-keep-alive.mjs';

/**
 * `/api/health` is unauthenticated and asks which providers are configured. However often it
 * is called, the platform keys secret is read from Secrets Manager (the local stand-in, behind
 * a proxy that counts the reads) at most once per recheck period, readable or not.
 */
let dataDir: string;
let standIn: AwsJsonServer;
let proxy: Server;
let reads = 0;
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'platform-keys-'));
  standIn = await startSecretsManagerStandIn({ dataDir, credentials });
  const { port } = new URL(standIn.url);
  // Headers pass unchanged, `host` included: the stand-in checks the client's signature.
  proxy = createServer((req, res) => {
    if (String(req.headers['x-amz-target']).endsWith('.GetSecretValue')) reads += 1;
    const forward = request(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers },
      (answer) => answer.pipe(res.writeHead(answer.statusCode ?? 502, answer.headers)),
    );
    req.pipe(forward);
  });
  withLoopbackKeepAlive(proxy);
  await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
  });
});
afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((done) => proxy.close(done));
  await standIn.close();
  rmSync(dataDir, { recursive: true, force: true });
});
beforeEach(() => (reads = 0));

async function putSecret(name: string, value: string): Promise<void> {
  await awsJsonCall(standIn.url, 'secretsmanager.CreateSecret', { Name: name, SecretString: value }, credentials);
}

test('an unreadable platform keys secret is read once, not once per call and provider', async () => {
  const config = readConfiguration({ PLATFORM_KEYS_SECRET_ID: 'never-created' });
  for (let i = 0; i < 20; i++) expect(await configuredProviders(config)).toEqual(new Set());
  expect(reads).toBe(1);
});

test('a readable platform keys secret is read once and configures its providers', async () => {
  await putSecret('platform-keys', JSON.stringify({ anthropic: 'sk-ant-test' }));
  const config = readConfiguration({ PLATFORM_KEYS_SECRET_ID: 'platform-keys' });
  for (let i = 0; i < 20; i++) expect(await configuredProviders(config)).toEqual(new Set(['anthropic']));
  expect(reads).toBe(1);
});
