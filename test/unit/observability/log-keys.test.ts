import middy, { type MiddlewareObj } from '@middy/core';
import { logger } from '../../../lambdas/config/logger.js';
import type { CallState } from '../../../lambdas/http/call.js';
import { callLogKeys, principalLogKeys } from '../../../lambdas/http/middlewares/observability.js';
import { beginCall, type GatewayMiddleware } from '../../../lambdas/http/middlewares/state.js';
import { routes } from '../../../lib/routes.js';
import { concurrentInvocations, type InvocationScope } from '../../../local/invocation-scope.js';

const route = routes.find((candidate) => candidate.id === 'models-list')!;
const lines: Record<string, unknown>[] = [];
const originalWrite = process.stdout.write.bind(process.stdout);

beforeAll(() => {
  logger.setLogLevel('DEBUG');
  process.stdout.write = ((chunk: string | Uint8Array) => {
    for (const line of String(chunk).split('\n')) if (line.startsWith('{')) lines.push(JSON.parse(line));
    return true;
  }) as typeof process.stdout.write;
});
afterAll(() => {
  process.stdout.write = originalWrite;
  delete process.env['AWS_LAMBDA_MAX_CONCURRENCY'];
});
beforeEach(() => (lines.length = 0));

/** Stands in for request-context and authentication: the call as they leave it. */
function callOf(requestId: string, accountId?: string): GatewayMiddleware {
  return {
    before: (request) => {
      beginCall(request, {
        route,
        requestId,
        responseHeaders: {},
        ...(accountId ? { principal: { kind: 'secretKey', accountId, keyId: 'k', rateLimit: 1 } } : {}),
      } as unknown as CallState);
    },
  };
}

/** A handler that logs, waits (another call may run meanwhile), and logs again. */
function handlerFor(requestId: string, accountId: string | undefined, pause: () => Promise<void>) {
  return middy()
    .use([callOf(requestId, accountId), callLogKeys(), principalLogKeys()] as MiddlewareObj[])
    .handler(async () => {
      logger.debug('first');
      await pause();
      logger.debug('second');
    });
}

const context = (awsRequestId: string) => ({ awsRequestId, functionName: 'fn', memoryLimitInMB: '512' }) as never;
const keysOf = (line: Record<string, unknown>) => [line['requestId'], line['accountId'], line['function_request_id']];

test('each invocation logs its own keys, and the previous call’s account is gone', async () => {
  await handlerFor('req-a', 'acct-a', async () => {})({}, context('aws-a'));
  await handlerFor('req-b', undefined, async () => {})({}, context('aws-b'));
  expect(lines.map(keysOf)).toEqual([
    ['req-a', 'acct-a', 'aws-a'],
    ['req-a', 'acct-a', 'aws-a'],
    ['req-b', undefined, 'aws-b'],
    ['req-b', undefined, 'aws-b'],
  ]);
});

test('overlapping invocations in their own scopes (the local runtime) keep their keys apart', async () => {
  const scope: InvocationScope = await concurrentInvocations();
  let release!: () => void;
  const gate = new Promise<void>((done) => (release = done));
  const first = scope('aws-a', () => handlerFor('req-a', 'acct-a', () => gate)({}, context('aws-a')));
  const second = scope('aws-b', () => handlerFor('req-b', 'acct-b', async () => release())({}, context('aws-b')));
  await Promise.all([first, second]);
  const byMessage = (message: string) => lines.filter((line) => line['message'] === message).map(keysOf);
  expect(byMessage('second')).toEqual(
    expect.arrayContaining([
      ['req-a', 'acct-a', 'aws-a'],
      ['req-b', 'acct-b', 'aws-b'],
    ]),
  );
  expect(lines.map(keysOf)).not.toContainEqual(['req-a', 'acct-b', expect.anything()]);
});
