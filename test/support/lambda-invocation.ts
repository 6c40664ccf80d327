/**
 * A REST API (v1) event and a Lambda context for calling a handler built by defineHandler in
 * process: GET /api/v1/openapi.json, a public route, so no credentials are needed.
 */
export const publicGetEvent = {
  httpMethod: 'GET',
  path: '/api/v1/openapi.json',
  resource: '/api/v1/openapi.json',
  headers: {},
  requestContext: { requestId: 'r', identity: { sourceIp: '127.0.0.1' } },
} as never;

/** A context whose function has `remainingMs` left (the call's deadline is a margin before it). */
export const lambdaContext = (remainingMs = 10_000, awsRequestId = 'aws-1') =>
  ({ awsRequestId, getRemainingTimeInMillis: () => remainingMs }) as never;
