/**
 * Where tracing is off (outside Lambda; POWERTOOLS_TRACE_ENABLED=false in the local runtime), the
 * handler chain must not load the X-Ray SDK: loading it installs cls-hooked's async hooks for the
 * whole process, and every promise then pays for destroy tracking.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';

type WithNamespaces = NodeJS.Process & { namespaces?: unknown };

test('building and running a handler with tracing off loads no X-Ray code and installs no context hooks', async () => {
  process.env['POWERTOOLS_TRACE_ENABLED'] = 'false';
  const { defineHandler } = await import('../../../lambdas/http/define-handler.js');
  const { bare } = await import('../../../lambdas/http/reply.js');
  const { tracerLoading } = await import('../../../lambdas/observability/tracer.js');
  const handler = defineHandler('openapi-get', { handle: async () => bare({ ok: true }, 200) });
  const result = (await handler(
    {
      httpMethod: 'GET',
      path: '/api/v1/openapi.json',
      resource: '/api/v1/openapi.json',
      headers: {},
      requestContext: { requestId: 'r', identity: { sourceIp: '127.0.0.1' } },
    } as never,
    { awsRequestId: 'aws-1', getRemainingTimeInMillis: () => 10_000 } as never,
  )) as APIGatewayProxyResult;

  expect(result.statusCode).toBe(200);
  expect(tracerLoading).toBeUndefined();
  // cls-hooked (loaded by aws-xray-sdk-core) creates process.namespaces when it loads.
  expect((process as WithNamespaces).namespaces).toBeUndefined();
});
