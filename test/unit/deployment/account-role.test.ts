import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { ROLE_PROPAGATION_WAITS_MS } from '../../../lambdas/deployment/account-role.js';
import { answerAccountRoleEvent, RESPONSE_RESERVE_MS } from '../../../lambdas/deployment/account-role-resource.js';
import { sdkApiGatewayAccount } from '../../../lambdas/deployment/api-gateway-account.js';
import { MAX_REASON_CHARS, putResponse } from '../../../lambdas/deployment/cloudformation-response.js';

/**
 * The `Custom::ApiGatewayAccountRole` handler against a fake of API Gateway's account API (no
 * local stand-in exists for it) reached by the real SDK client over loopback, and a loopback
 * server as CloudFormation's response URL, so the PUT it sends is read as S3 would read it.
 */

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** API Gateway's account settings: GET /account and PATCH /account, with scripted failures. */
class FakeApiGateway {
  roleArn: string | undefined;
  /** Answers for the next PATCHes, in order, before any succeeds. */
  patchFailures: { status: number; type: string; message: string }[] = [];
  getFailure: { status: number; type: string; message: string } | undefined;
  readonly calls: Received[] = [];

  answer(request: Received): { status: number; headers: Record<string, string>; body: string } {
    this.calls.push(request);
    const failure = request.method === 'PATCH' ? this.patchFailures.shift() : this.getFailure;
    if (failure) {
      return {
        status: failure.status,
        headers: { 'x-amzn-errortype': failure.type },
        body: JSON.stringify({ message: failure.message }),
      };
    }
    if (request.method === 'PATCH') {
      const { patchOperations } = JSON.parse(request.body) as { patchOperations: { path: string; value: string }[] };
      for (const operation of patchOperations)
        if (operation.path === '/cloudwatchRoleArn') this.roleArn = operation.value;
    }
    const account = {
      ...(this.roleArn === undefined ? {} : { cloudwatchRoleArn: this.roleArn }),
      throttleSettings: { burstLimit: 5000, rateLimit: 10000 },
      features: ['UsagePlans'],
      apiKeyVersion: '4',
    };
    return { status: 200, headers: {}, body: JSON.stringify(account) };
  }

  writes(): Received[] {
    return this.calls.filter((call) => call.method === 'PATCH');
  }
}

function listen(handle: (request: Received) => { status: number; headers: Record<string, string>; body: string }) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const answer = handle({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body);
    });
  });
  return new Promise<Server>((ready) => server.listen(0, '127.0.0.1', () => ready(server)));
}

const portOf = (server: Server) => (server.address() as AddressInfo).port;

let apiGateway: FakeApiGateway;
let apiServer: Server;
let responses: Received[];
let responseStatus: number;
let responseServer: Server;
let account: ReturnType<typeof sdkApiGatewayAccount>;

beforeAll(async () => {
  apiServer = await listen((request) => apiGateway.answer(request));
  responseServer = await listen((request) => {
    responses.push(request);
    return { status: responseStatus, headers: {}, body: '' };
  });
  account = sdkApiGatewayAccount(
    new APIGatewayClient({
      region: 'eu-west-1',
      endpoint: `http://127.0.0.1:${portOf(apiServer)}`,
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
    }),
  );
});
afterAll(async () => {
  await new Promise((done) => apiServer.close(done));
  await new Promise((done) => responseServer.close(done));
});
beforeEach(() => {
  apiGateway = new FakeApiGateway();
  responses = [];
  responseStatus = 200;
});

const STACK_ID = 'arn:aws:cloudformation:eu-west-1:123456789012:stack/Gateway/0a1b2c3d';
const ROLE = 'arn:aws:iam::123456789012:role/Gateway-PublicApiAccountRoleRole-ABC123';
const OTHER_TEAMS_ROLE = 'arn:aws:iam::123456789012:role/platform/apigw-logs';
const PHYSICAL_ID = `${STACK_ID}/PublicApiAccountRole`;

function event(
  requestType: 'Create' | 'Update' | 'Delete',
  properties: Record<string, unknown> = { RoleArn: ROLE },
): CloudFormationCustomResourceEvent {
  const common = {
    ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:account-role',
    // A presigned URL carries its signature in the query, which must reach S3 unchanged.
    ResponseURL: `http://127.0.0.1:${portOf(responseServer)}/cfn-response/abc?X-Amz-Signature=f00d&X-Amz-Expires=7200`,
    StackId: STACK_ID,
    RequestId: `request-${requestType}`,
    LogicalResourceId: 'PublicApiAccountRole',
    ResourceType: 'Custom::ApiGatewayAccountRole',
    ResourceProperties: { ServiceToken: 'token', ...properties },
  };
  if (requestType === 'Create') return { ...common, RequestType: 'Create' };
  if (requestType === 'Update') {
    return {
      ...common,
      RequestType: 'Update',
      PhysicalResourceId: PHYSICAL_ID,
      OldResourceProperties: common.ResourceProperties,
    };
  }
  return { ...common, RequestType: 'Delete', PhysicalResourceId: PHYSICAL_ID };
}

const sleeps: number[] = [];
const answer = (e: CloudFormationCustomResourceEvent, remainingMs = 60_000) =>
  answerAccountRoleEvent(e, {
    account,
    remainingMs: () => remainingMs,
    respond: putResponse,
    sleep: async (ms) => void sleeps.push(ms),
  });

/** The one answer CloudFormation received, parsed, with how it was sent. */
function theResponse() {
  expect(responses).toHaveLength(1);
  const [put] = responses as [Received];
  expect(put.method).toBe('PUT');
  expect(put.url).toBe('/cfn-response/abc?X-Amz-Signature=f00d&X-Amz-Expires=7200');
  // The presigned URL signs no content type: a non-empty one would make S3 refuse the PUT.
  expect(put.headers['content-type']).toBe('');
  expect(Number(put.headers['content-length'])).toBe(Buffer.byteLength(put.body));
  return JSON.parse(put.body) as Record<string, unknown>;
}

describe('create', () => {
  test('an account without a role gets the stack role, and CloudFormation hears SUCCESS', async () => {
    await answer(event('Create'));
    expect(apiGateway.calls.map((call) => `${call.method} ${call.url}`)).toEqual(['GET /account', 'PATCH /account']);
    expect(JSON.parse(apiGateway.writes()[0]!.body)).toEqual({
      patchOperations: [{ op: 'replace', path: '/cloudwatchRoleArn', value: ROLE }],
    });
    expect(apiGateway.roleArn).toBe(ROLE);
    expect(theResponse()).toEqual({
      Status: 'SUCCESS',
      PhysicalResourceId: PHYSICAL_ID,
      StackId: STACK_ID,
      RequestId: 'request-Create',
      LogicalResourceId: 'PublicApiAccountRole',
      Data: { Action: 'set', AccountRoleArn: ROLE },
    });
  });

  test("an account with another team's role keeps it: read, never written", async () => {
    apiGateway.roleArn = OTHER_TEAMS_ROLE;
    await answer(event('Create'));
    expect(apiGateway.writes()).toEqual([]);
    expect(apiGateway.roleArn).toBe(OTHER_TEAMS_ROLE);
    expect(theResponse()).toMatchObject({
      Status: 'SUCCESS',
      Data: { Action: 'kept', AccountRoleArn: OTHER_TEAMS_ROLE },
    });
  });

  test('idempotent: a repeated create finds its own role and writes nothing more', async () => {
    await answer(event('Create'));
    responses = [];
    await answer(event('Create'));
    expect(apiGateway.writes()).toHaveLength(1);
    expect(theResponse()).toMatchObject({ Status: 'SUCCESS', Data: { Action: 'kept', AccountRoleArn: ROLE } });
  });

  test('an account whose role was cleared (an empty ARN) counts as having none', async () => {
    apiGateway.roleArn = '';
    await answer(event('Create'));
    expect(apiGateway.roleArn).toBe(ROLE);
  });

  test('while IAM propagates the new role it retries on the schedule, then succeeds', async () => {
    sleeps.length = 0;
    const notYet = {
      status: 400,
      type: 'BadRequestException',
      message:
        'The role ARN does not have required permissions configured. Please grant trust permission for API Gateway',
    };
    apiGateway.patchFailures = [notYet, notYet, notYet];
    await answer(event('Create'));
    expect(apiGateway.writes()).toHaveLength(4);
    expect(sleeps).toEqual(ROLE_PROPAGATION_WAITS_MS.slice(0, 3));
    expect(theResponse()).toMatchObject({ Status: 'SUCCESS', Data: { Action: 'set' } });
  });

  test('a role API Gateway never accepts fails the resource after the last wait, with its reason', async () => {
    sleeps.length = 0;
    const refused = {
      status: 400,
      type: 'BadRequestException',
      message: 'The role ARN does not have required permissions',
    };
    apiGateway.patchFailures = Array.from({ length: 20 }, () => refused);
    await answer(event('Create'));
    expect(apiGateway.writes()).toHaveLength(ROLE_PROPAGATION_WAITS_MS.length + 1);
    expect(sleeps).toEqual(ROLE_PROPAGATION_WAITS_MS);
    expect(theResponse()).toMatchObject({
      Status: 'FAILED',
      PhysicalResourceId: PHYSICAL_ID,
      Reason: expect.stringMatching(/^BadRequestException: The role ARN does not have required permissions/),
    });
  });

  test('another refusal is not retried: FAILED at once, with the reason', async () => {
    apiGateway.patchFailures = [{ status: 400, type: 'BadRequestException', message: 'Invalid patch path /x' }];
    await answer(event('Create'));
    expect(apiGateway.writes()).toHaveLength(1);
    expect(theResponse()).toMatchObject({ Status: 'FAILED', Reason: 'BadRequestException: Invalid patch path /x' });
  });

  test('without permission to read the setting it fails, and still answers', async () => {
    apiGateway.getFailure = { status: 403, type: 'AccessDeniedException', message: 'not authorized: apigateway:GET' };
    await answer(event('Create'));
    expect(apiGateway.writes()).toEqual([]);
    expect(theResponse()).toMatchObject({ Status: 'FAILED', Reason: expect.stringContaining('apigateway:GET') });
  });

  test('a RoleArn that is not a role ARN is refused before any call', async () => {
    await answer(event('Create', { RoleArn: 'arn:aws:iam::123456789012:user/someone' }));
    expect(apiGateway.calls).toEqual([]);
    expect(theResponse()).toMatchObject({ Status: 'FAILED', Reason: expect.stringContaining('RoleArn') });
  });

  test('with no time left before its own deadline it answers FAILED instead of running out', async () => {
    await answer(event('Create'), RESPONSE_RESERVE_MS);
    expect(apiGateway.calls).toEqual([]);
    expect(theResponse()).toMatchObject({ Status: 'FAILED' });
  });

  test('a long reason is cut so the answer stays under CloudFormation 4 KB', async () => {
    apiGateway.getFailure = { status: 400, type: 'BadRequestException', message: 'x'.repeat(10_000) };
    await answer(event('Create'));
    const body = theResponse();
    expect(String(body['Reason'])).toHaveLength(MAX_REASON_CHARS);
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThan(4096);
  });
});

describe.each(['Update', 'Delete'] as const)('%s', (requestType) => {
  test('never reads or changes the setting, and keeps the physical id', async () => {
    apiGateway.roleArn = OTHER_TEAMS_ROLE;
    await answer(event(requestType));
    expect(apiGateway.calls).toEqual([]);
    expect(apiGateway.roleArn).toBe(OTHER_TEAMS_ROLE);
    expect(theResponse()).toEqual({
      Status: 'SUCCESS',
      PhysicalResourceId: PHYSICAL_ID,
      StackId: STACK_ID,
      RequestId: `request-${requestType}`,
      LogicalResourceId: 'PublicApiAccountRole',
      Data: { Action: 'untouched' },
    });
  });

  test('succeeds whatever the properties say, so a rollback or a delete is never stuck', async () => {
    await answer(event(requestType, {}));
    expect(theResponse()).toMatchObject({ Status: 'SUCCESS' });
  });
});

test('an answer the response URL refuses is an error, not a silent success', async () => {
  responseStatus = 403;
  await expect(answer(event('Delete'))).rejects.toThrow(/403/);
});
