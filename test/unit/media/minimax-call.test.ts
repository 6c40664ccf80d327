import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { send } from '../../../lambdas/providers/http-transport.js';
import { callMinimax } from '../../../lambdas/media/minimax-call.js';
import { UpstreamError } from '../../../lambdas/providers/upstream-failure.js';

/** MiniMax's envelope read once: business codes inside HTTP 200 and real HTTP errors, classified. */
let server: Server;
let baseUrl: string;
let answer: { status: number; body: string; headers?: Record<string, string> };
let seen: { url?: string; authorization?: string; body?: string } = {};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen = { url: req.url, authorization: req.headers.authorization, body };
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise((done) => server.close(done)));

const call = (request: Parameters<typeof callMinimax>[1] = { method: 'POST', path: '/t2a_v2', body: { text: 'hi' } }) =>
  callMinimax({ baseUrl, apiKey: 'k-1' }, request, { send, signal: AbortSignal.timeout(5_000) });
const envelope = (code: number, msg: string, fields: object = {}) =>
  JSON.stringify({ ...fields, trace_id: 't-1', base_resp: { status_code: code, status_msg: msg } });
const failureOf = async (promise: Promise<unknown>) => {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(UpstreamError);
  return (error as UpstreamError).failure;
};

test('a success returns the body and trace id; the request carries Bearer auth, JSON and the query', async () => {
  answer = { status: 200, body: envelope(0, 'success', { task_id: '42' }), headers: { 'trace-id': 'trace-h' } };
  const result = await call({ method: 'GET', path: '/query/video_generation', query: { task_id: '42' } });
  expect(result.body['task_id']).toBe('42');
  expect(result.traceId).toBe('trace-h');
  expect(seen).toMatchObject({ url: '/v1/query/video_generation?task_id=42', authorization: 'Bearer k-1' });
});

test.each([
  [1002, 'rate_limit'],
  [1039, 'rate_limit'],
  [1004, 'auth'],
  [2049, 'auth'],
  [1008, 'quota'],
  [1026, 'content_filter'],
  [2013, 'bad_request'],
  [1013, 'overload'],
  [9999, 'overload'],
])('business code %i inside HTTP 200 is %s', async (code, kind) => {
  answer = { status: 200, body: envelope(code, `message ${code}`, { data: null }) };
  expect(await failureOf(call())).toMatchObject({ kind, status: 200, providerCode: String(code) });
});

test('real HTTP errors are classified by status; an unreadable body is malformed', async () => {
  answer = { status: 503, body: '<html>bad gateway</html>' };
  expect(await failureOf(call())).toMatchObject({ kind: 'overload', status: 503 });
  answer = { status: 429, body: envelope(1002, 'rpm') };
  expect(await failureOf(call())).toMatchObject({ kind: 'rate_limit', providerCode: '1002' });
  answer = { status: 200, body: '{"data":{"audio":"00"}}' };
  expect(await failureOf(call())).toMatchObject({ kind: 'malformed' });
  answer = { status: 200, body: 'not json' };
  expect(await failureOf(call())).toMatchObject({ kind: 'malformed' });
});
