import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { APIGatewayProxyEventV2, APIGatewayProxyResult } from 'aws-lambda';
import { useGateway } from './support/gateway-fixture.js';

/**
 * An in-account caller of a function URL (IAM auth) signs with SigV4, so its API key rides in
 * X-API-Key. The real models-list handler runs in this process against the runtime's tables.
 */
const local = useGateway({ runtimeTables: true, account: 'signed', key: { via: 'dashboard' } });
let handler: (event: unknown, context: unknown) => Promise<APIGatewayProxyResult>;

const HOST = 'abcdefghijklmnop.lambda-url.eu-west-1.on.aws';
const PATH = '/api/v1/models';

beforeAll(async () => {
  process.env['POWERTOOLS_LOG_LEVEL'] = 'WARN';
  ({ handler } = (await import('../../lambdas/handlers/models-list.js')) as unknown as { handler: typeof handler });
});

/** Headers as a SigV4-signing client sends them to a function URL. */
async function signedHeaders(extra: Record<string, string>): Promise<Record<string, string>> {
  const signer = new SignatureV4({
    service: 'lambda',
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
    sha256: Hash.bind(null, 'sha256'),
  });
  const signed = await signer.sign({
    method: 'GET',
    protocol: 'https:',
    hostname: HOST,
    path: PATH,
    headers: { host: HOST, ...extra },
  });
  return signed.headers;
}

/** A function URL (v2) event as Lambda builds it for a request that passed IAM auth. */
function functionUrlEvent(headers: Record<string, string>): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: PATH,
    rawQueryString: '',
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])),
    requestContext: {
      accountId: '111122223333',
      apiId: 'abcdefghijklmnop',
      authorizer: {
        iam: { accessKey: 'AKIDEXAMPLE', accountId: '111122223333', userArn: 'arn:aws:iam::111122223333:user/caller' },
      },
      domainName: HOST,
      domainPrefix: 'abcdefghijklmnop',
      http: { method: 'GET', path: PATH, protocol: 'HTTP/1.1', sourceIp: '198.51.100.9', userAgent: 'test' },
      requestId: `url-${Math.random()}`,
      routeKey: '$default',
      stage: '$default',
      time: '01/Mar/2026:12:00:00 +0000',
      timeEpoch: Date.now(),
    } as APIGatewayProxyEventV2['requestContext'],
    isBase64Encoded: false,
  };
}

const context = () => ({
  functionName: 'models-list',
  awsRequestId: `ctx-${Math.random()}`,
  getRemainingTimeInMillis: () => 10_000,
});

const invoke = async (headers: Record<string, string>) => {
  const result = await handler(functionUrlEvent(headers), context());
  return { status: result.statusCode, body: JSON.parse(result.body) };
};

test('a SigV4-signed function-URL call with X-API-Key is served', async () => {
  const headers = await signedHeaders({ 'x-api-key': local.key });
  expect(headers['authorization']).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\//);
  const answer = await invoke(headers);
  expect(answer.status).toBe(200);
  expect(answer.body.object).toBe('list');
});

test('a signed call without X-API-Key is 401 UNAUTHORIZED; with a wrong key 401 INVALID_API_KEY', async () => {
  const missing = await invoke(await signedHeaders({}));
  expect([missing.status, missing.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
  const wrong = await invoke(await signedHeaders({ 'x-api-key': `${local.key.slice(0, -4)}AAAA` }));
  expect([wrong.status, wrong.body.error.code]).toEqual([401, 'INVALID_API_KEY']);
});

test('a Bearer key still works through the function URL', async () => {
  const answer = await invoke({ host: HOST, authorization: `Bearer ${local.key}` });
  expect(answer.status).toBe(200);
});

test('through the REST API a SigV4 Authorization is not a credential: 401 even with X-API-Key', async () => {
  const headers = await signedHeaders({ 'x-api-key': local.key });
  const result = await handler(
    {
      resource: PATH,
      path: PATH,
      httpMethod: 'GET',
      headers,
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
      requestContext: { requestId: 'rest-1', identity: { sourceIp: '198.51.100.9' } },
    },
    context(),
  );
  expect(result.statusCode).toBe(401);
  expect(JSON.parse(result.body).error.code).toBe('INVALID_API_KEY');
});
