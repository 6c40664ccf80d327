import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deliverWebhook } from '../../../lambdas/jobs/webhook-delivery.js';

/**
 * One delivery over real sockets: a receiver on loopback named as a local receiver gets the
 * body and headers; redirects are answers, never followed; the public-URL policy is applied
 * again at delivery, and a name is judged by the addresses the connection itself resolves.
 */
let server: Server;
let origin: string;
const heard: { path: string; headers: IncomingMessage['headers']; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      heard.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.url === '/moved') {
        res.writeHead(302, { Location: `http://${origin}/target` }).end();
      } else res.writeHead(req.url === '/broken' ? 500 : 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => heard.splice(0));

const send = (url: string, more: Partial<Parameters<typeof deliverWebhook>[0]> = {}) =>
  deliverWebhook({
    url,
    headers: { 'webhook-id': 'job_a.video.completed' },
    body: '{"a":1}',
    receivers: [origin],
    ...more,
  });

test('a local receiver gets the body and headers; its status is the answer', async () => {
  expect(await send(`http://${origin}/hook?t=1`)).toEqual({ kind: 'answered', status: 204 });
  expect(heard).toEqual([
    {
      path: '/hook?t=1',
      headers: expect.objectContaining({ 'webhook-id': 'job_a.video.completed', 'content-type': 'application/json' }),
      body: '{"a":1}',
    },
  ]);
  expect(await send(`http://${origin}/broken`)).toEqual({ kind: 'answered', status: 500 });
});

test('a redirect is an answer, not followed', async () => {
  expect(await send(`http://${origin}/moved`)).toEqual({ kind: 'answered', status: 302 });
  expect(heard.map((request) => request.path)).toEqual(['/moved']);
});

test('the same receiver, not named as a local receiver, is refused without a connection', async () => {
  const answer = await send(`http://${origin}/hook`, { receivers: [] });
  expect(answer).toMatchObject({ kind: 'refused', reason: expect.stringContaining('must be a public https URL') });
  expect(heard).toEqual([]);
});

test('a name that now resolves to a private address is refused as the connection resolves it (rebinding)', async () => {
  for (const addresses of [['127.0.0.1'], ['93.184.216.34', '10.0.0.1'], ['::1']]) {
    const answer = await send('https://hooks.rebind.example.com/hook', { lookup: async () => addresses });
    expect(answer).toMatchObject({
      kind: 'refused',
      reason: expect.stringContaining('hooks.rebind.example.com resolves to'),
    });
  }
  expect(heard).toEqual([]);
});

test('no answer (a closed port) is unreachable, worth a retry', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const answer = await send(`http://127.0.0.1:${port}/hook`, { receivers: [`127.0.0.1:${port}`] });
  expect(answer).toMatchObject({ kind: 'unreachable' });
});
