import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { issueKey } from '../../../lambdas/identity/issue-key.js';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../local/dynamodb.js';
import { createGatewayServer, type GatewayServer } from '../../../local/gateway-server.js';
import { handlerEnvironment } from '../../../local/runtime-config.js';
import { errorRoute } from '../../fixtures/streaming-routes.js';
import { publishableKeyRoute } from '../../fixtures/publishable-key-route.js';
import { RawHttpConnection, type RawResponse } from '../../support/raw-http.js';

/**
 * A browser calling a publishable-key route from a page on another origin: the preflight (no
 * credentials) is admitted from any origin, then the real request is admitted only from the
 * key's own origins, and neither answer allows credentials unless the origin is the
 * deployment's own. Read as raw header lines, the way a browser's CORS check sees them.
 */
const ROOT_DIR = fileURLToPath(new URL('../../..', import.meta.url));
/** The deployment's own origin (the dashboard's). */
const DEPLOYMENT_ORIGIN = 'https://dashboard.example.com';
/** The partner page the publishable key was issued for; not one of the deployment's origins. */
const KEY_ORIGIN = 'https://partner.example.org';
const OTHER_ORIGIN = 'https://elsewhere.example.net';

const BROWSER_PREFLIGHT = {
  'Access-Control-Request-Method': 'POST',
  'Access-Control-Request-Headers': 'authorization,content-type',
};

let dataDir: string;
let db: LocalDynamoDb;
let server: GatewayServer;
let baseUrl: string;
let publishableKey: string;
let connection: RawHttpConnection;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'publishable-cors-'));
  db = await startLocalDynamoDb({ dataDir, tablePrefix: 'pkcors' });
  const unused = 'http://127.0.0.1:9';
  Object.assign(
    process.env,
    handlerEnvironment(
      { dynamodb: db.endpoint, secretsManager: unused, cognito: unused },
      db.tableNames,
      [DEPLOYMENT_ORIGIN],
      'test',
      { accessKeyId: 'test', secretAccessKey: 'test' },
    ),
    { POWERTOOLS_LOG_LEVEL: 'SILENT' },
  );
  publishableKey = (await issueKey({ accountId: 'acct-cors', type: 'publishable', allowedOrigins: [KEY_ORIGIN] })).key;
  server = createGatewayServer({
    routes: [publishableKeyRoute, errorRoute],
    loadHandler: (route) => import(pathToFileURL(resolve(ROOT_DIR, route.entry)).href),
    allowedOrigins: () => [DEPLOYMENT_ORIGIN],
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 30_000);

beforeEach(async () => {
  connection = await RawHttpConnection.open(baseUrl);
});
afterEach(() => connection.close());

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
  await db.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The CORS header lines of a response, byte for byte, in the order sent. */
const corsLines = (response: RawResponse) =>
  response.headerLines.filter((line) => /^(access-control-|vary:)/i.test(line));

const preflight = (path: string, origin: string) =>
  connection.request('OPTIONS', path, { Origin: origin, ...BROWSER_PREFLIGHT });

const callWithKey = (origin: string, key = publishableKey) =>
  connection.request(
    'POST',
    publishableKeyRoute.path,
    { Origin: origin, Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    '{}',
  );

/** What the deployment's own origin gets from a preflight: credentials allowed. */
const ownOriginPreflight = (methods: string) => [
  `Access-Control-Allow-Origin: ${DEPLOYMENT_ORIGIN}`,
  'Access-Control-Allow-Credentials: true',
  `Access-Control-Allow-Methods: ${methods}`,
  expect.stringMatching(/^Access-Control-Allow-Headers: /),
  'Access-Control-Max-Age: 3600',
  'Vary: Origin',
];

describe('a route that accepts publishable keys', () => {
  test("the preflight admits the key's origin, though the deployment does not list it, without credentials", async () => {
    const answer = await preflight(publishableKeyRoute.path, KEY_ORIGIN);
    expect(answer.status).toBe(204);
    expect(corsLines(answer)).toEqual([
      `Access-Control-Allow-Origin: ${KEY_ORIGIN}`,
      'Access-Control-Allow-Methods: POST',
      'Access-Control-Allow-Headers: Authorization, X-API-Key, Content-Type, X-Request-ID, X-Cache, X-Cache-TTL, X-Guardrails',
      'Access-Control-Max-Age: 3600',
      'Vary: Origin',
    ]);
  });

  test('then the real request from that origin is served, readable by the page, without credentials', async () => {
    await preflight(publishableKeyRoute.path, KEY_ORIGIN);
    const answer = await callWithKey(KEY_ORIGIN);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body.toString())).toEqual({ caller: 'publishableKey' });
    expect(corsLines(answer)).toEqual([
      `Access-Control-Allow-Origin: ${KEY_ORIGIN}`,
      expect.stringMatching(/^Access-Control-Expose-Headers: X-Request-ID, X-RateLimit-Limit, /),
      'Vary: Origin',
    ]);
  });

  test('any origin passes the preflight, but the key refuses the real request from one it does not list, unreadably', async () => {
    const admitted = await preflight(publishableKeyRoute.path, OTHER_ORIGIN);
    expect(admitted.headers['access-control-allow-origin']).toBe(OTHER_ORIGIN);
    const refused = await callWithKey(OTHER_ORIGIN);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body.toString()).error.message).toMatch(/not allowed from this origin/);
    expect(corsLines(refused)).toEqual([]);
  });

  test("the deployment's own origin still gets credentials, on the preflight and on a key's request", async () => {
    const answer = await preflight(publishableKeyRoute.path, DEPLOYMENT_ORIGIN);
    expect(corsLines(answer)).toEqual(ownOriginPreflight('POST'));
    const ownKey = await issueKey({ accountId: 'acct-cors', type: 'publishable', allowedOrigins: [DEPLOYMENT_ORIGIN] });
    const served = await callWithKey(DEPLOYMENT_ORIGIN, ownKey.key);
    expect(served.status).toBe(200);
    expect(served.headers['access-control-allow-origin']).toBe(DEPLOYMENT_ORIGIN);
    expect(served.headers['access-control-allow-credentials']).toBe('true');
  });

  test('a preflight without an Origin gets no CORS headers', async () => {
    const answer = await connection.request('OPTIONS', publishableKeyRoute.path, BROWSER_PREFLIGHT);
    expect(answer.status).toBe(204);
    expect(corsLines(answer)).toEqual([]);
  });
});

describe('a route publishable keys cannot use', () => {
  test('the preflight admits only the deployment origins, as before', async () => {
    expect(corsLines(await preflight(errorRoute.path, KEY_ORIGIN))).toEqual([]);
    const own = await preflight(errorRoute.path, DEPLOYMENT_ORIGIN);
    expect(corsLines(own)).toEqual(ownOriginPreflight('GET, POST, PATCH, DELETE, OPTIONS'));
  });
});
