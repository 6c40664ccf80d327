import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { matchPathParams, normalizeEvent, parseCookieHeader } from '../../../lambdas/http/request.js';
import type { RouteSpec } from '../../../lib/routes.js';

const route: RouteSpec = {
  id: 'fixture-key-update',
  method: 'PATCH',
  path: '/api/v1/keys/{id}',
  entry: 'test/fixtures/none.ts',
  auth: [],
  rateLimited: false,
  streaming: true,
  timeoutSeconds: 10,
  memoryMb: 128,
  errorStyle: 'envelope',
  grants: [],
};

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** A REST API (v1) proxy event as API Gateway sends it; only the fields the code reads matter. */
function v1Event(overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  return {
    resource: '/api/v1/keys/{id}',
    path: '/api/v1/keys/key%20one',
    httpMethod: 'patch',
    headers: {
      'Content-Type': 'application/json',
      Cookie: 'gw_session=abc%3D%3D; theme=dark',
      'X-Request-ID': 'req-12345678',
    },
    multiValueHeaders: {},
    queryStringParameters: { limit: '10', cursor: 'a b' },
    multiValueQueryStringParameters: null,
    pathParameters: { id: 'key one' },
    stageVariables: null,
    body: '{"name":"é"}',
    isBase64Encoded: false,
    requestContext: {
      requestId: 'apigw-req-1',
      identity: { sourceIp: '203.0.113.7' },
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      path: '/prod/api/v1/keys/key%20one',
    } as APIGatewayProxyEvent['requestContext'],
    ...overrides,
  };
}

/** A function URL (v2) event: no path parameters, cookies in their own array. */
function v2Event(overrides: Partial<APIGatewayProxyEventV2> = {}): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/api/v1/keys/key%20one',
    rawQueryString: 'limit=10',
    cookies: ['gw_session=s%3D1', 'theme=light'],
    headers: { 'content-type': 'application/json', 'X-Forwarded-For': '198.51.100.2' },
    queryStringParameters: { limit: '10' },
    requestContext: {
      accountId: 'anonymous',
      apiId: 'url-id',
      domainName: 'example.lambda-url.us-east-1.on.aws',
      domainPrefix: 'example',
      http: {
        method: 'delete',
        path: '/api/v1/keys/key%20one',
        protocol: 'HTTP/1.1',
        sourceIp: '198.51.100.2',
        userAgent: 'test',
      },
      requestId: 'url-req-1',
      routeKey: '$default',
      stage: '$default',
      time: '01/Mar/2026:12:00:00 +0000',
      timeEpoch: 0,
    },
    body: b64('{"name":"é"}'),
    isBase64Encoded: true,
    ...overrides,
  };
}

describe('normalizeEvent: REST API v1 proxy events', () => {
  test('method, path, lower-cased headers, query, path params, cookies, body and ids', () => {
    expect(normalizeEvent(v1Event(), route)).toEqual({
      method: 'PATCH',
      path: '/api/v1/keys/key%20one',
      headers: {
        'content-type': 'application/json',
        cookie: 'gw_session=abc%3D%3D; theme=dark',
        'x-request-id': 'req-12345678',
      },
      query: { limit: '10', cursor: 'a b' },
      pathParams: { id: 'key one' },
      cookies: { gw_session: 'abc==', theme: 'dark' },
      rawBody: '{"name":"é"}',
      sourceIp: '203.0.113.7',
      platformRequestId: 'apigw-req-1',
      door: 'restApi',
      baseUrl: 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod',
    });
  });

  test('a base64 body is decoded as UTF-8', () => {
    const req = normalizeEvent(v1Event({ body: b64('{"name":"é✓"}'), isBase64Encoded: true }), route);
    expect(req.rawBody).toBe('{"name":"é✓"}');
  });

  test('null maps and a null body become empty', () => {
    const req = normalizeEvent(
      v1Event({ headers: {}, queryStringParameters: null, pathParameters: null, body: null }),
      route,
    );
    expect(req.headers).toEqual({});
    expect(req.query).toEqual({});
    expect(req.pathParams).toEqual({});
    expect(req.cookies).toEqual({});
    expect(req.rawBody).toBe('');
  });

  test('undefined header and query values are dropped', () => {
    const req = normalizeEvent(
      v1Event({ headers: { 'X-Kept': 'yes', 'X-Gone': undefined }, queryStringParameters: { a: '1', b: undefined } }),
      route,
    );
    expect(req.headers).toEqual({ 'x-kept': 'yes' });
    expect(req.query).toEqual({ a: '1' });
  });

  test('v1 path parameters are taken as API Gateway gives them, not recovered from the path', () => {
    const req = normalizeEvent(v1Event({ path: '/api/v1/keys/other', pathParameters: { id: 'from-gateway' } }), route);
    expect(req.pathParams).toEqual({ id: 'from-gateway' });
  });

  test('a missing request context yields empty ids rather than a crash', () => {
    const req = normalizeEvent(v1Event({ requestContext: undefined as never }), route);
    expect(req.sourceIp).toBe('');
    expect(req.platformRequestId).toBe('');
    expect(req.baseUrl).toBe('');
  });
});

describe('normalizeEvent: the base URL the caller reached', () => {
  const reached = (requestContext: Record<string, unknown>, headers: Record<string, string> = {}) =>
    normalizeEvent(
      v1Event({
        path: '/api/v1/openapi.json',
        headers,
        requestContext: requestContext as unknown as APIGatewayProxyEvent['requestContext'],
      }),
      route,
    ).baseUrl;

  test('the stage URL keeps its stage; a custom domain mapped at the root has none', () => {
    const stageUrl = { domainName: 'abc123.execute-api.eu-west-1.amazonaws.com', path: '/prod/api/v1/openapi.json' };
    expect(reached(stageUrl)).toBe('https://abc123.execute-api.eu-west-1.amazonaws.com/prod');
    expect(reached({ domainName: 'api.example.com', path: '/api/v1/openapi.json' })).toBe('https://api.example.com');
  });

  test('API Gateway’s own host name wins over a Host header the caller sent', () => {
    const context = { domainName: 'api.example.com', path: '/api/v1/openapi.json' };
    expect(reached(context, { Host: 'evil.example' })).toBe('https://api.example.com');
  });

  test('the local runtime: no domain name, so the Host header over http', () => {
    expect(reached({ path: '/api/v1/openapi.json' }, { Host: '127.0.0.1:8787' })).toBe('http://127.0.0.1:8787');
    expect(reached({ path: '/api/v1/openapi.json' }, { Host: '[::1]:8787' })).toBe('http://[::1]:8787');
  });

  test('a host that is no host name yields none', () => {
    for (const host of ['evil.example/phish?', 'a b', 'user@host', '', 'host:99999999'])
      expect([host, reached({ path: '/api/v1/openapi.json' }, { Host: host })]).toEqual([host, '']);
  });
});

describe('normalizeEvent: function URL v2 events', () => {
  test('path params recovered from the route template, cookies from the cookies array, base64 body', () => {
    expect(normalizeEvent(v2Event(), route)).toEqual({
      method: 'DELETE',
      path: '/api/v1/keys/key%20one',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.2' },
      query: { limit: '10' },
      pathParams: { id: 'key one' },
      cookies: { gw_session: 's=1', theme: 'light' },
      rawBody: '{"name":"é"}',
      sourceIp: '198.51.100.2',
      platformRequestId: 'url-req-1',
      door: 'functionUrl',
      baseUrl: 'https://example.lambda-url.us-east-1.on.aws',
    });
  });

  test('without a cookies array, cookies come from the Cookie header', () => {
    const req = normalizeEvent(v2Event({ cookies: undefined, headers: { Cookie: 'a=1; b=two%20words' } }), route);
    expect(req.cookies).toEqual({ a: '1', b: 'two words' });
  });

  test('the cookies array wins over a Cookie header', () => {
    const req = normalizeEvent(v2Event({ cookies: ['a=from-array'], headers: { cookie: 'a=from-header' } }), route);
    expect(req.cookies).toEqual({ a: 'from-array' });
  });

  test('a plain-text body, no query and no body', () => {
    expect(normalizeEvent(v2Event({ body: 'raw text', isBase64Encoded: false }), route).rawBody).toBe('raw text');
    const bare = normalizeEvent(
      v2Event({ body: undefined, isBase64Encoded: false, queryStringParameters: undefined }),
      route,
    );
    expect(bare.rawBody).toBe('');
    expect(bare.query).toEqual({});
  });

  test('a path that does not fit the template yields no path params', () => {
    expect(normalizeEvent(v2Event({ rawPath: '/api/v1/keys' }), route).pathParams).toEqual({});
    expect(normalizeEvent(v2Event({ rawPath: '/api/v1/keys/a/b' }), route).pathParams).toEqual({});
  });
});

describe('matchPathParams', () => {
  test('names every parameter, percent-decoded', () => {
    expect(matchPathParams('/a/{first}/b/{second}', '/a/x%2Fy/b/%E2%9C%93')).toEqual({ first: 'x/y', second: '✓' });
  });

  test('bad percent-encoding is kept raw', () => {
    expect(matchPathParams('/api/v1/keys/{id}', '/api/v1/keys/%E0%A4%A')).toEqual({ id: '%E0%A4%A' });
  });

  test('a template without parameters, or a path of another length, gives none', () => {
    expect(matchPathParams('/api/v1/keys', '/api/v1/keys')).toEqual({});
    expect(matchPathParams('/api/v1/keys/{id}', '/api/v1/keys/x/')).toEqual({});
  });

  test('a last greedy parameter takes the rest of the path, slashes included', () => {
    expect(matchPathParams('/api/v1/models/{id+}', '/api/v1/models/gpt')).toEqual({ id: 'gpt' });
    expect(matchPathParams('/api/v1/models/{id+}', '/api/v1/models/openai/gpt-5')).toEqual({ id: 'openai/gpt-5' });
    expect(matchPathParams('/api/v1/models/{id+}', '/api/v1/models/openai%2Fgpt-5')).toEqual({ id: 'openai/gpt-5' });
    expect(matchPathParams('/x/{a}/{rest+}', '/x/1/2/3')).toEqual({ a: '1', rest: '2/3' });
    expect(matchPathParams('/api/v1/models/{id+}', '/api/v1/models')).toEqual({});
    expect(matchPathParams('/api/v1/models/{id+}', '/api/v1/models/')).toEqual({});
  });
});

describe('parseCookieHeader', () => {
  test('no header, empty header', () => {
    expect(parseCookieHeader(undefined)).toEqual({});
    expect(parseCookieHeader('')).toEqual({});
  });

  test('pairs are trimmed and decoded; values may contain "="', () => {
    expect(parseCookieHeader(' a = 1 ;b=x%20y;token=abc==;  c=')).toEqual({ a: '1', b: 'x y', token: 'abc==', c: '' });
  });

  test('a duplicate name keeps the first value', () => {
    expect(parseCookieHeader('gw_session=first; other=1; gw_session=second')).toEqual({
      gw_session: 'first',
      other: '1',
    });
  });

  test('bad percent-encoding is kept raw', () => {
    expect(parseCookieHeader('a=%E0%A4%A; b=100%')).toEqual({ a: '%E0%A4%A', b: '100%' });
  });

  test('a pair without "=" or without a name is skipped', () => {
    expect(parseCookieHeader('flag; a=1;;')).toEqual({ a: '1' });
    expect(parseCookieHeader('=orphan;a=1')).toEqual({ a: '1' });
    expect(parseCookieHeader('a=1; =orphan;  = spaced')).toEqual({ a: '1' });
  });

  test('a cookie named like an Object.prototype member is an ordinary cookie', () => {
    expect(parseCookieHeader('toString=abc; constructor=def')).toEqual({ toString: 'abc', constructor: 'def' });
    expect(Object.hasOwn(parseCookieHeader('a=1'), 'constructor')).toBe(false);
  });
});
