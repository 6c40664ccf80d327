/**
 * In Lambda the stack turns active tracing on (lib/constructs/endpoint-function.ts): the tracer
 * loads while the function initialises, and every call gets its handler subsegment, annotated
 * with the route, as before tracing became lazy.
 */
import type { Tracer } from '@aws-lambda-powertools/tracer';
import xray from 'aws-xray-sdk-core';
import type { APIGatewayProxyResult } from 'aws-lambda';

process.env['AWS_EXECUTION_ENV'] = 'AWS_Lambda_nodejs24.x';
process.env['_HANDLER'] = 'index.handler';
process.env['AWS_LAMBDA_INITIALIZATION_TYPE'] = 'on-demand';
delete process.env['POWERTOOLS_TRACE_ENABLED'];
// The X-Ray SDK patches Node's http module for the whole process, and jest runs other test files
// in this worker afterwards: their outgoing calls would each log a missing-segment error (tens of
// thousands of lines, which slowed a full run past a test's timeout). This test is about the
// handler's subsegment, not outgoing calls, so it leaves http alone.
process.env['POWERTOOLS_TRACER_CAPTURE_HTTPS_REQUESTS'] = 'false';

afterAll(() => {
  delete process.env['AWS_EXECUTION_ENV'];
  delete process.env['_HANDLER'];
  delete process.env['AWS_LAMBDA_INITIALIZATION_TYPE'];
  delete process.env['POWERTOOLS_TRACER_CAPTURE_HTTPS_REQUESTS'];
});

type Provider = { getNamespace(): { runPromise<T>(fn: () => Promise<T>): Promise<T> } };

test("the rule is Powertools' own: on in Lambda unless turned off, off elsewhere", async () => {
  const { tracingEnabled } = await import('../../../lambdas/observability/tracer.js');
  const lambda = { AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x' };
  expect(tracingEnabled(lambda)).toBe(true);
  expect(tracingEnabled({ ...lambda, POWERTOOLS_TRACE_ENABLED: 'true' })).toBe(true);
  expect(tracingEnabled({ ...lambda, POWERTOOLS_TRACE_ENABLED: 'FALSE' })).toBe(false);
  expect(tracingEnabled({ ...lambda, AWS_SAM_LOCAL: 'true' })).toBe(false);
  expect(tracingEnabled({ AWS_EXECUTION_ENV: 'AWS_Lambda_amplify-mock' })).toBe(false);
  expect(tracingEnabled({})).toBe(false);
});

test('with tracing on, each call opens and closes its handler subsegment, annotated with the route', async () => {
  const { tracerLoading } = await import('../../../lambdas/observability/tracer.js');
  const { defineHandler } = await import('../../../lambdas/http/define-handler.js');
  const { bare } = await import('../../../lambdas/http/reply.js');
  expect(tracerLoading).toBeDefined();
  const tracer: Tracer = await tracerLoading!;
  expect(tracer.isTracingEnabled()).toBe(true);

  const handler = defineHandler('openapi-get', { handle: async () => bare({ ok: true }, 200) });
  const facade = new xray.Segment('facade');
  const result = await (tracer.provider as unknown as Provider).getNamespace().runPromise(async () => {
    tracer.setSegment(facade);
    return (await handler(
      {
        httpMethod: 'GET',
        path: '/api/v1/openapi.json',
        resource: '/api/v1/openapi.json',
        headers: {},
        requestContext: { requestId: 'r', identity: { sourceIp: '127.0.0.1' } },
      } as never,
      { awsRequestId: 'aws-1', getRemainingTimeInMillis: () => 10_000 } as never,
    )) as APIGatewayProxyResult;
  });

  expect(result.statusCode).toBe(200);
  const subsegments = (facade.subsegments ?? []) as unknown as {
    name: string;
    annotations?: Record<string, unknown>;
    end_time?: number;
  }[];
  expect(subsegments.map((s) => s.name)).toEqual(['## index.handler']);
  const [handlerSegment] = subsegments;
  expect(handlerSegment!.annotations).toMatchObject({ route: 'openapi-get', ColdStart: true, Service: 'ai-gateway' });
  expect(handlerSegment!.end_time).toBeGreaterThan(0);
});
