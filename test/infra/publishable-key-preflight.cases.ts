import { App, Stack } from 'aws-cdk-lib';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { PublicApi } from '../../lib/constructs/public-api.js';
import { CORS_ALLOW_HEADERS, CORS_MAX_AGE_SECONDS, publishableKeyResources } from '../../lib/cors-preflight.js';
import { apiMethods, build, manifestRoutes, syntheticRoute, type Built } from './support.js';

/**
 * Resources with routes that accept publishable keys get an OPTIONS method that admits any
 * origin, even with no CORS origins configured: a preflight carries no credentials, so the key's
 * own origins are checked on the real request. The build runs cdk-nag, which must stay clean.
 */
const chatMode = syntheticRoute({
  id: 'fixture-chat-mode',
  path: '/api/v1/fixture-mode',
  auth: ['secretKey', 'publishableKey'],
  streaming: true,
});
const routes = [...manifestRoutes, chatMode];
/** The arena's session routes and leaderboard take publishable keys too: a browser reads its sessions again. */
const SESSION_PATHS = [
  '/api/v1/arena/leaderboard',
  '/api/v1/sessions',
  '/api/v1/sessions/{id}',
  '/api/v1/sessions/{id}/events',
  '/api/v1/sessions/{id}/cancel',
];
const OWN_ORIGINS = ['https://app.example.com', 'https://admin.example.com'];

/** The properties of the resource's one OPTIONS method. */
function preflightAt(built: Built, path: string): Record<string, any> {
  const found = apiMethods(built.template).filter((m) => m.method === 'OPTIONS' && m.path === path);
  expect(found).toHaveLength(1);
  return found[0]!.props;
}

describe('with no CORS origins configured', () => {
  let built: Built;
  beforeAll(() => {
    built = build({ routes, corsOrigins: [] });
  });

  test('only the publishable-key resources have a preflight (the fixture, the arena routes and its sessions)', () => {
    const preflights = apiMethods(built.template).filter((m) => m.method === 'OPTIONS');
    expect(preflights.map((m) => m.path).sort()).toEqual(
      [chatMode.path, '/api/v1/battle', '/api/v1/fight', '/api/chat', ...SESSION_PATHS].sort(),
    );
  });

  test('it is an unauthenticated mock answering 204 with fixed CORS headers and no credentials', () => {
    const props = preflightAt(built, chatMode.path);
    expect(props.AuthorizationType).toBe('NONE');
    expect(props.Integration.Type).toBe('MOCK');
    const [response] = props.Integration.IntegrationResponses;
    expect(response.StatusCode).toBe('204');
    expect(response.ResponseParameters).toEqual({
      'method.response.header.Access-Control-Allow-Methods': "'POST'",
      'method.response.header.Access-Control-Allow-Headers': `'${CORS_ALLOW_HEADERS.join(',')}'`,
      'method.response.header.Access-Control-Max-Age': `'${CORS_MAX_AGE_SECONDS}'`,
      'method.response.header.Vary': "'Origin'",
    });
    expect(props.MethodResponses).toEqual([
      {
        StatusCode: '204',
        ResponseParameters: {
          'method.response.header.Access-Control-Allow-Methods': true,
          'method.response.header.Access-Control-Allow-Headers': true,
          'method.response.header.Access-Control-Max-Age': true,
          'method.response.header.Vary': true,
          'method.response.header.Access-Control-Allow-Origin': true,
          'method.response.header.Access-Control-Allow-Credentials': true,
        },
      },
    ]);
  });

  test("its template echoes the request's Origin and never allows credentials", () => {
    const props = preflightAt(built, chatMode.path);
    const template = String(props.Integration.IntegrationResponses[0].ResponseTemplates['application/json']);
    expect(template).toContain('#set($origin = $input.params().header.get("Origin"))');
    expect(template).toContain('#set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)');
    expect(template).not.toContain('Access-Control-Allow-Credentials');
  });
});

describe('with CORS origins configured', () => {
  let built: Built;
  beforeAll(() => {
    built = build({ routes, corsOrigins: OWN_ORIGINS });
  });

  test('every resource has exactly one preflight, the publishable-key one its own', () => {
    const preflights = apiMethods(built.template).filter((m) => m.method === 'OPTIONS');
    const paths = preflights.map((m) => m.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect(paths).toEqual(expect.arrayContaining(['/', '/api', chatMode.path, '/api/v1/chat/completions']));
    const props = preflightAt(built, chatMode.path);
    const parameters = Object.keys(props.Integration.IntegrationResponses[0].ResponseParameters);
    expect(parameters).not.toContain('method.response.header.Access-Control-Allow-Credentials');
    expect(parameters).not.toContain('method.response.header.Access-Control-Allow-Origin');
  });

  test("credentials are allowed to the deployment's own origins only, by the template", () => {
    const props = preflightAt(built, chatMode.path);
    const template = String(props.Integration.IntegrationResponses[0].ResponseTemplates['application/json']);
    expect(template).toContain(`#if($origin == "${OWN_ORIGINS[0]}" || $origin == "${OWN_ORIGINS[1]}")`);
    expect(template).toContain('#set($context.responseOverride.header.Access-Control-Allow-Credentials = "true")');
  });

  test('other resources keep the preflight for the configured origins, with credentials', () => {
    const props = preflightAt(built, '/api/v1/chat/completions');
    const parameters = props.Integration.IntegrationResponses[0].ResponseParameters;
    expect(parameters['method.response.header.Access-Control-Allow-Credentials']).toBe("'true'");
    expect(parameters['method.response.header.Access-Control-Allow-Origin']).toBe(`'${OWN_ORIGINS[0]}'`);
  });
});

test('a resource with a publishable-key route admits all its methods; resources without one are not listed', () => {
  const shared = syntheticRoute({ id: 'fixture-mode-list', method: 'GET', path: chatMode.path, auth: ['session'] });
  expect(Object.fromEntries(publishableKeyResources([...manifestRoutes, chatMode, shared]))).toEqual({
    [chatMode.path]: ['POST', 'GET'],
    '/api/v1/battle': ['POST'],
    '/api/v1/fight': ['POST'],
    '/api/chat': ['POST'],
    '/api/v1/arena/leaderboard': ['GET'],
    '/api/v1/sessions': ['GET'],
    '/api/v1/sessions/{id}': ['GET'],
    '/api/v1/sessions/{id}/events': ['GET'],
    '/api/v1/sessions/{id}/cancel': ['POST'],
  });
});

test('a publishable-key route the API was not told about is refused, rather than left without a preflight', () => {
  const stack = new Stack(new App(), 'Bare');
  const api = new PublicApi(stack, 'Api', { routes: manifestRoutes });
  const fn = new LambdaFunction(stack, 'Fn', {
    runtime: Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => ({})'),
  });
  expect(() => api.addRoute(chatMode, fn)).toThrow(/fixture-chat-mode accepts publishable keys/);
});

test('an origin that could break out of the template is refused', () => {
  expect(() => build({ routes, corsOrigins: ['https://a.example.com" || true || "'] })).toThrow(/not a plain/);
});
