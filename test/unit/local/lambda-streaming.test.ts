import { jest } from '@jest/globals';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createGatewayServer } from '../../../local/gateway-server.js';
import { BINARY_CHUNKS, fixtureRoutes, sseRoute } from '../../fixtures/streaming-routes.js';

/**
 * The streaming path end to end over loopback HTTP: synthetic streaming routes, the local
 * gateway server (which installs the `awslambda` globals and loads the handler modules), middy's
 * streamify mode, the response writer, and plain `fetch` on the other side.
 */
const ROOT_DIR = fileURLToPath(new URL('../../..', import.meta.url));

/** The SSE fixture's module exports, read through the same module URL the server loaded. */
interface SseFixture {
  producers: Map<
    string,
    {
      framesProduced: number;
      waitingOnGate: boolean;
      completed: boolean;
      finallyRan: boolean;
      signalAbortedInFinally?: boolean;
    }
  >;
  openGate(requestId: string): void;
}

const originalConsoleError = console.error;
const originalLogLevel = process.env['POWERTOOLS_LOG_LEVEL'];
/** Streams torn down by the client, as the server reports them on stderr. */
let disconnectReports = 0;

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  // The handlers' structured request logs are not under test here.
  process.env['POWERTOOLS_LOG_LEVEL'] = 'SILENT';
  // The server reports a stream the client abandoned as a failed request; count those, pass the rest on.
  jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    if (args[0] === 'local gateway: request failed' && String(args[1]).includes('client disconnected'))
      disconnectReports++;
    else originalConsoleError(...args);
  });
  server = createGatewayServer({
    routes: fixtureRoutes,
    loadHandler: (route) => import(pathToFileURL(resolve(ROOT_DIR, route.entry)).href),
    allowedOrigins: () => [],
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
  await new Promise((resolve) => setTimeout(resolve, 20)); // late reports of closed streams
  jest.restoreAllMocks();
  if (originalLogLevel === undefined) delete process.env['POWERTOOLS_LOG_LEVEL'];
  else process.env['POWERTOOLS_LOG_LEVEL'] = originalLogLevel;
});

/** Only valid after the server has served the route once (it dynamic-imports the entry). */
const sseFixture = async (): Promise<SseFixture> =>
  (await import(pathToFileURL(resolve(ROOT_DIR, sseRoute.entry)).href)) as SseFixture;

/** Polls a condition every few ms; fails with `what` after a generous bound. */
async function until(what: string, condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

let requestCounter = 0;
/** A fresh, sane X-Request-ID: the server echoes it and the fixture files its producer under it. */
const newRequestId = (label: string) => `test-${label}-${process.pid}-${++requestCounter}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Reads from a stream reader until the text so far contains `marker`. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, marker: string): Promise<string> {
  const decoder = new TextDecoder();
  let received = '';
  while (!received.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before ${JSON.stringify(marker)}; got ${JSON.stringify(received)}`);
    received += decoder.decode(value, { stream: true });
  }
  return received;
}

/** Opens an endless stream, reads until frame `n`, aborts, and returns the producer's record once its finally ran. */
async function abortAfterFrame(n: number) {
  const requestId = newRequestId('abort');
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/fixture/stream?endless=1`, {
    headers: { 'X-Request-ID': requestId },
    signal: controller.signal,
  });
  const received = await readUntil(response.body!.getReader(), `data: {"n":${n}}\n\n`);
  controller.abort();
  const fixture = await sseFixture();
  const record = fixture.producers.get(requestId)!;
  await until('the producer’s finally to run', () => record.finallyRan);
  return { received, record };
}

describe('SSE over the local gateway', () => {
  test('headers arrive before the first frame; frames arrive in order; the body ends cleanly', async () => {
    const requestId = newRequestId('gated');
    const response = await fetch(`${baseUrl}/fixture/stream`, { headers: { 'X-Request-ID': requestId } });

    // fetch resolved on the prelude alone: the producer is parked on its gate, no frame yet.
    const fixture = await sseFixture();
    const record = fixture.producers.get(requestId)!;
    await until('the producer to wait on its gate', () => record.waitingOnGate);
    expect(record.framesProduced).toBe(0);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(response.headers.get('x-request-id')).toBe(requestId);
    expect(response.headers.get('x-fixture')).toBe('sse');

    fixture.openGate(requestId);
    const text = await response.text();
    expect(text).toBe(
      'event: tick\ndata: {"n":0}\n\n' +
        'event: tick\ndata: {"n":1}\n\n' +
        'data: line one\ndata: line two\n\n' +
        'data: [DONE]\n\n',
    );
    expect(record).toMatchObject({ framesProduced: 4, completed: true, finallyRan: true });
  });

  test('without a client X-Request-ID the stream carries a generated one', async () => {
    const controller = new AbortController();
    const response = await fetch(`${baseUrl}/fixture/stream?endless=1`, { signal: controller.signal });
    expect(response.headers.get('x-request-id')).toMatch(UUID);
    const fixture = await sseFixture();
    const record = fixture.producers.get(response.headers.get('x-request-id')!)!;
    expect(record).toBeDefined();
    controller.abort();
    await until('the producer’s finally to run', () => record.finallyRan);
  });

  test('a client abort mid-stream runs the producer generator’s finally', async () => {
    const reportsBefore = disconnectReports;
    const { received, record } = await abortAfterFrame(2);
    // Whatever arrived is the ordered sequence from the start: nothing lost or reordered.
    expect(received).toMatch(
      /^event: tick\ndata: \{"n":0\}\n\nevent: tick\ndata: \{"n":1\}\n\nevent: tick\ndata: \{"n":2\}\n\n/,
    );
    expect(record.finallyRan).toBe(true);
    expect(record.completed).toBe(false);
    await until('the server to report the disconnect', () => disconnectReports > reportsBefore);
  });

  // BUG (reported, not fixed here): GatewayCall.signal is documented as "aborted when the
  // client disconnects (streaming)", but request-context reads `context.signal`, which neither
  // Lambda nor the local runtime provides (middy passes its own signal as the handler's third
  // argument, which define-handler drops). Flip to `test` once the signal is wired.
  test('call.signal is aborted when the client disconnects', async () => {
    const { record } = await abortAfterFrame(0);
    expect(record.signalAbortedInFinally).toBe(true);
  });

  test('the server keeps serving streams after aborted ones', async () => {
    const requestId = newRequestId('after-abort');
    const response = await fetch(`${baseUrl}/fixture/stream`, { headers: { 'X-Request-ID': requestId } });
    const fixture = await sseFixture();
    await until('the producer to wait on its gate', () => fixture.producers.get(requestId)?.waitingOnGate === true);
    fixture.openGate(requestId);
    expect(await response.text()).toMatch(/^event: tick\ndata: \{"n":0\}\n\n[^]*data: \[DONE\]\n\n$/);
  });
});

describe('binary streaming over the local gateway', () => {
  test('an async iterable of bytes arrives whole, in order, with its content type', async () => {
    const response = await fetch(`${baseUrl}/fixture/binary`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-fixture');
    expect(response.headers.get('x-fixture')).toBe('binary');
    expect(response.headers.get('x-request-id')).toMatch(UUID);
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(Array.from(bytes)).toEqual(BINARY_CHUNKS.flat());
  });
});

describe('errors on a streaming route', () => {
  const post = (body: string) =>
    fetch(`${baseUrl}/fixture/error`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });

  test('an HttpError from the handler arrives as a JSON error body with its status and headers', async () => {
    const response = await post(JSON.stringify({ name: 'thing' }));
    expect(response.status).toBe(409);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('x-fixture')).toBe('error');
    expect(response.headers.get('x-request-id')).toMatch(UUID);
    expect(await response.json()).toEqual({
      success: false,
      error: { code: 'CONFLICT', message: 'fixture conflict on thing', field: 'name' },
    });
  });

  test('a body-validation failure (a middleware error) is a 400 naming the field', async () => {
    const response = await post('{}');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      success: false,
      error: { code: 'BAD_REQUEST', message: 'name: is required', field: 'name' },
    });
  });

  test('malformed JSON is a 400 on field body', async () => {
    const response = await post('{"name":');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      success: false,
      error: { code: 'BAD_REQUEST', message: 'body: must be valid JSON', field: 'body' },
    });
  });

  test('an unexpected error is a 500 without internal details', async () => {
    const response = await post(JSON.stringify({ name: 'crash' }));
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain('fixture crash');
    expect(JSON.parse(text)).toEqual({
      success: false,
      error: { code: 'INTERNAL_ERROR', message: 'Internal error; the request id identifies it in the logs' },
    });
  });
});

describe('routing in the local gateway', () => {
  test('an unknown path and a known path with another method are both 404, as on a REST API', async () => {
    const missing = await fetch(`${baseUrl}/fixture/nowhere`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    const wrongMethod = await fetch(`${baseUrl}/fixture/stream`, { method: 'DELETE' });
    expect(wrongMethod.status).toBe(404);
    expect(((await wrongMethod.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });
});
