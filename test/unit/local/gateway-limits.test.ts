import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createGatewayServer, type GatewayServer } from '../../../local/gateway-server.js';
import { gatewayResponse, gatewayResponseTemplate } from '../../../lib/gateway-responses.js';
import type { RouteSpec } from '../../../lib/routes.js';
import { publishableKeyRoute } from '../../fixtures/publishable-key-route.js';
import { errorRoute } from '../../fixtures/streaming-routes.js';

/**
 * What the laptop's gateway answers before a handler runs, with small limits so the sizes stay
 * cheap: API Gateway's body limit, Lambda's event limit (in the route's error style), and unknown
 * routes as the stack's gateway response says.
 */
const ROOT_DIR = fileURLToPath(new URL('../../..', import.meta.url));
const MAX_EVENT_BYTES = 8 * 1024;
const MAX_BODY_BYTES = 32 * 1024;
const ORIGIN = 'https://app.example.com';

const openaiRoute: RouteSpec = { ...errorRoute, id: 'fixture-openai', path: '/fixture/openai', errorStyle: 'openai' };

const servers: GatewayServer[] = [];
async function start(origins: string[], routes: readonly RouteSpec[] = [errorRoute, openaiRoute]): Promise<string> {
  const server = createGatewayServer({
    routes,
    loadHandler: (route) => import(pathToFileURL(resolve(ROOT_DIR, route.entry)).href),
    allowedOrigins: () => origins,
    maxBodyBytes: MAX_BODY_BYTES,
    maxEventBytes: MAX_EVENT_BYTES,
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let baseUrl: string;
beforeAll(async () => {
  process.env['POWERTOOLS_LOG_LEVEL'] = 'SILENT';
  baseUrl = await start([ORIGIN]);
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  }
});

const post = (path: string, bodyBytes: number, headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ name: 'x'.repeat(bodyBytes - 13) }),
  });

describe("Lambda's event limit", () => {
  test('an envelope route refuses an oversized event with 413 in the envelope', async () => {
    const answer = await post(errorRoute.path, MAX_EVENT_BYTES);
    expect(answer.status).toBe(413);
    expect(await answer.json()).toEqual({
      success: false,
      error: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining(String(MAX_EVENT_BYTES)) },
    });
  });

  test('an OpenAI-style route refuses it in the OpenAI shape', async () => {
    const answer = await post(openaiRoute.path, MAX_EVENT_BYTES, { Origin: ORIGIN });
    expect(answer.status).toBe(413);
    expect(await answer.json()).toEqual({
      error: {
        code: 'PAYLOAD_TOO_LARGE',
        message: expect.stringContaining('payload limit'),
        type: 'invalid_request_error',
        param: null,
      },
    });
    expect(answer.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  });

  test('the whole event counts, escapes included: a body under the limit that escapes over it is refused', async () => {
    const quotes = JSON.stringify({ name: '"'.repeat(MAX_EVENT_BYTES * 0.3) });
    expect(Buffer.byteLength(quotes)).toBeLessThan(MAX_EVENT_BYTES);
    const answer = await fetch(`${baseUrl}${errorRoute.path}`, { method: 'POST', body: quotes });
    expect(answer.status).toBe(413);
  });

  test('an event under the limit reaches the handler', async () => {
    const answer = await post(errorRoute.path, MAX_EVENT_BYTES / 2);
    expect(answer.status).toBe(409);
    expect(answer.headers.get('x-fixture')).toBe('error');
  });
});

describe("API Gateway's own answers", () => {
  const expectedBody = (type: 'MISSING_AUTHENTICATION_TOKEN' | 'REQUEST_TOO_LARGE') =>
    JSON.parse(gatewayResponseTemplate(gatewayResponse(type))) as unknown;

  test('a body over the API limit is the REQUEST_TOO_LARGE gateway response', async () => {
    const answer = await post(openaiRoute.path, MAX_BODY_BYTES * 2);
    expect(answer.status).toBe(413);
    expect(await answer.json()).toEqual(expectedBody('REQUEST_TOO_LARGE'));
  });

  test.each([
    ['an unknown path', 'GET', '/fixture/nowhere'],
    ['a known path with another method', 'DELETE', errorRoute.path],
  ])('%s is a 404 in the shape both error styles read, with CORS headers', async (_name, method, path) => {
    const answer = await fetch(`${baseUrl}${path}`, { method, headers: { Origin: ORIGIN } });
    expect(answer.status).toBe(404);
    expect(await answer.json()).toEqual({
      success: false,
      error: {
        code: 'NOT_FOUND',
        message: 'No route matches this method and path',
        type: 'not_found_error',
        param: null,
      },
    });
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(answer.headers.get('access-control-allow-credentials')).toBe('true');
    expect(answer.headers.get('vary')).toBe('Origin');
  });

  test('without CORS origins, as in a stack without them, no CORS headers', async () => {
    const bare = await start([]);
    const answer = await fetch(`${bare}/fixture/nowhere`, { headers: { Origin: ORIGIN } });
    expect(answer.status).toBe(404);
    expect(await answer.json()).toEqual(expectedBody('MISSING_AUTHENTICATION_TOKEN'));
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('without CORS origins but with publishable-key routes, the origin is echoed without credentials', async () => {
    const bare = await start([], [errorRoute, publishableKeyRoute]);
    const answer = await fetch(`${bare}/fixture/nowhere`, { headers: { Origin: ORIGIN } });
    expect(answer.status).toBe(404);
    expect(answer.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(answer.headers.get('access-control-expose-headers')).toBe('Retry-After');
    expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
