import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { capture, epochMs, keepCaptured, type CapturedRequest } from './capture.js';
import { FaultQueue, parseFault, type RequestFaults } from './faults.js';
import { parseLimit, QpsLimits } from './limits.js';
import { MAX_ANSWER_PACING_MS, NO_PACING, type Pacing } from './pacing.js';
import { persistState, type SimulatorState } from './persisted-state.js';
import { withLoopbackKeepAlive } from '../loopback-keep-alive.mjs';

/**
 * The common harness of every upstream simulator: an HTTP server on loopback with the
 * control API (`/__sim/faults`, `/__sim/requests`, `/__sim/limits`), request capture, QPS
 * limits (limits.ts), and fault injection
 * applied the same way for every provider. A provider module supplies its routes, its own
 * error bodies and its credential check: the personality, not the plumbing.
 */

export type { CapturedRequest } from './capture.js';

export interface SimResponse {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** Text, or bytes for files a fake serves (images, video). */
  readonly body: string | Uint8Array;
}

export interface SimStream {
  /** Sends one SSE event; false once the connection is gone (reset or client left). */
  event(data: string, name?: string): Promise<boolean>;
  /** Sends one SSE event that carries a generated token: paced by the stream's token wait. */
  token(data: string, name?: string): Promise<boolean>;
  /** An SSE comment line (keep-alive). */
  comment(text: string): Promise<boolean>;
  /** Ends the response normally. */
  end(): void;
  /** Cuts the connection abruptly, without the terminal marker. */
  reset(): void;
}

export interface SimExchange {
  readonly method: string;
  readonly url: URL;
  readonly headers: IncomingMessage['headers'];
  readonly params: Record<string, string>;
  /** Parsed JSON body, or undefined when absent or not JSON. */
  readonly body: unknown;
  readonly rawBody: string;
  readonly faults: RequestFaults;
  /**
   * A whole response; injected delays, malformed bodies and resets apply. `answerMs` is the
   * time the simulated model takes to write it (pacing.ts wholeAnswerMs), waited first.
   */
  send(response: SimResponse, answerMs?: number): Promise<void>;
  /**
   * Opens an SSE response; injected delays, malformed events and resets apply. With `pacing`
   * the first event waits the time to the first token, and each token event after the first
   * the time between tokens (until the answer's pacing budget is spent).
   */
  stream(headers?: Record<string, string>, pacing?: Pacing): Promise<SimStream>;
  /**
   * Opens a stream of binary frames (AWS's event stream, Bedrock's ConverseStream) under
   * `contentType`: the same faults and pacing as `stream`, each event encoded by `frame` (a
   * `malformed_chunk` event's data is truncated before it is framed). Comments send nothing.
   */
  framedStream(
    contentType: string,
    frame: (data: string, name: string | undefined) => Uint8Array,
    headers?: Record<string, string>,
    pacing?: Pacing,
  ): Promise<SimStream>;
}

export interface SimRoute {
  readonly method: string;
  /** A regular expression over the path; named groups become `params`. */
  readonly path: RegExp;
  /** Generation routes draw injected faults; listings and metadata do not. */
  readonly faultable: boolean;
  /** The upstream's default QPS limit on this route, under a name the control API uses. */
  readonly limit?: { readonly name: string; readonly qps: number };
  /** Served without the provider's credential check (a signed download URL, as a CDN serves it). */
  readonly anonymous?: boolean;
  handle(exchange: SimExchange): Promise<void>;
}

export interface SimulatorDefinition {
  readonly name: string;
  readonly routes: readonly SimRoute[];
  /** The model a request is for, to match faults scoped to a model. */
  modelOf(exchange: Pick<SimExchange, 'url' | 'body' | 'params'>): string | undefined;
  /** The provider's own error for an injected status. */
  errorFor(status: number, exchange: SimExchange): SimResponse;
  /** The provider's own answer to a missing or wrong credential, or undefined when accepted. */
  authenticate(exchange: SimExchange): SimResponse | undefined | Promise<SimResponse | undefined>;
  /** The provider's answer to a request over a route's QPS limit (default: its 429). */
  overLimit?(qps: number, exchange: SimExchange): SimResponse;
  /** Errors the `error:<name>` fault can inject, by name (faults.ts). */
  readonly namedErrors?: Readonly<Record<string, (exchange: SimExchange) => SimResponse>>;
  /**
   * The job state a real upstream keeps across a client's restart (tasks, predictions, files):
   * started with a `stateDir`, it is restored from and kept in `<stateDir>/<name>.json`.
   */
  readonly state?: SimulatorState;
}

export interface SimulatorStartOptions {
  /**
   * Folder for the definition's `state` (persisted-state.ts). Without one the simulator keeps
   * everything in memory only, as unit tests want.
   */
  readonly stateDir?: string;
}

export interface RunningSimulator {
  readonly name: string;
  /** The root URL: the control API lives at `<url>/__sim/...`. */
  readonly url: string;
  readonly faults: FaultQueue;
  readonly requests: CapturedRequest[];
  /** Writes the definition's pending state at once (synchronously), then closes the server. */
  close(): Promise<void>;
}

export async function startSimulator(
  definition: SimulatorDefinition,
  port = 0,
  options: SimulatorStartOptions = {},
): Promise<RunningSimulator> {
  const faults = new FaultQueue();
  const limits = new QpsLimits(
    Object.fromEntries(definition.routes.flatMap((r) => (r.limit ? [[r.limit.name, r.limit.qps]] : []))),
  );
  const requests: CapturedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendPlain(res, 500, `simulator ${definition.name} failed: ${String(error)}`);
      else res.destroy();
    });
  });
  withLoopbackKeepAlive(server);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const receivedAt = epochMs();
    const url = new URL(req.url ?? '/', 'http://simulator');
    const rawBody = await readBody(req);
    if (url.pathname.startsWith('/__sim/')) return control(req.method ?? 'GET', url.pathname, rawBody, res);
    const body = parseJson(rawBody);
    const captured = capture(req, url, rawBody, body, receivedAt);
    keepCaptured(requests, captured);
    const ended = () => (captured.endedAt ??= epochMs());
    res.on('finish', ended);
    res.on('close', () => {
      ended();
      captured.closedBeforeEnd = !res.writableFinished;
    });

    const route = definition.routes.find((r) => r.method === req.method && r.path.test(url.pathname));
    if (!route) return sendPlain(res, 404, `simulator ${definition.name}: no route ${req.method} ${url.pathname}`);
    const params = { ...(route.path.exec(url.pathname)?.groups ?? {}) };
    const model = definition.modelOf({ url, body, params });
    // A request over the limit is refused before it could take an injected fault.
    const limited = route.limit !== undefined && !limits.admit(route.limit.name);
    const drawn = route.faultable && !limited ? faults.draw(model) : {};
    const exchange = createExchange(req, res, url, params, body, rawBody, drawn, captured);
    const refusal = route.anonymous ? undefined : await definition.authenticate(exchange);
    if (refusal) return exchange.send(refusal);
    if (limited) return exchange.send(overLimit(limits.qpsOf(route.limit!.name) ?? 0, exchange));
    if (drawn.status !== undefined) return exchange.send(definition.errorFor(drawn.status, exchange));
    const namedError = drawn.errorName === undefined ? undefined : definition.namedErrors?.[drawn.errorName];
    if (namedError) return exchange.send(namedError(exchange));
    await route.handle(exchange);
  }

  const overLimit = (qps: number, exchange: SimExchange) =>
    definition.overLimit?.(qps, exchange) ?? definition.errorFor(429, exchange);

  function control(method: string, path: string, rawBody: string, res: ServerResponse): void {
    if (path === '/__sim/limits') return limitsControl(method, rawBody, res);
    if (path === '/__sim/faults' && method === 'POST') {
      const spec = parseJson(rawBody) as { fault?: unknown; times?: unknown; model?: unknown } | undefined;
      const fault = parseFault(spec?.fault);
      const times = spec?.times === undefined ? 1 : spec.times;
      if (!fault || (fault.type === 'error' && !Object.hasOwn(definition.namedErrors ?? {}, fault.name))) {
        return sendJson(res, 400, { error: `unknown fault ${JSON.stringify(spec?.fault)}` });
      }
      if (typeof times !== 'number' || !Number.isInteger(times) || times < 1) {
        return sendJson(res, 400, { error: 'times must be a positive integer' });
      }
      if (spec?.model !== undefined && typeof spec.model !== 'string')
        return sendJson(res, 400, { error: 'model must be a string' });
      faults.add({ fault, remaining: times, model: spec?.model as string | undefined, text: spec!.fault as string });
      return sendJson(res, 201, { faults: faults.list() });
    }
    if (path === '/__sim/faults' && method === 'DELETE') {
      faults.clear();
      return sendJson(res, 200, { faults: [] });
    }
    if (path === '/__sim/faults' && method === 'GET') return sendJson(res, 200, { faults: faults.list() });
    if (path === '/__sim/requests' && method === 'GET') return sendJson(res, 200, { requests });
    if (path === '/__sim/requests' && method === 'DELETE') {
      requests.length = 0;
      return sendJson(res, 200, { requests });
    }
    sendJson(res, 404, { error: `no control route ${method} ${path}` });
  }

  function limitsControl(method: string, rawBody: string, res: ServerResponse): void {
    if (method === 'GET') return sendJson(res, 200, { limits: limits.list() });
    if (method === 'DELETE') {
      limits.restore();
      return sendJson(res, 200, { limits: limits.list() });
    }
    if (method !== 'POST') return sendJson(res, 404, { error: `no control route ${method} /__sim/limits` });
    const limit = parseLimit(parseJson(rawBody), limits.routes());
    if ('error' in limit) return sendJson(res, 400, { error: limit.error });
    limits.set(limit.qps, limit.route);
    return sendJson(res, 200, { limits: limits.list() });
  }

  await listen(server, port);
  // Restored in the same turn as the listen completes, so before any request is read (and
  // only once the port is ours: a taken one is retried elsewhere); a stop writes what changed.
  const persisted =
    options.stateDir !== undefined && definition.state
      ? persistState(join(options.stateDir, `${definition.name}.json`), definition.state)
      : undefined;
  const { port: bound } = server.address() as AddressInfo;
  return {
    name: definition.name,
    url: `http://127.0.0.1:${bound}`,
    faults,
    requests,
    close: () =>
      new Promise<void>((done) => {
        persisted?.close();
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}

/** Listens on loopback; a port already taken rejects (EADDRINUSE) instead of crashing. */
function listen(server: Server, port: number): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', fail);
      done();
    });
  });
}

function createExchange(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  params: Record<string, string>,
  body: unknown,
  rawBody: string,
  faults: RequestFaults,
  captured: CapturedRequest,
): SimExchange {
  const write = (data: string | Uint8Array) => {
    if (data.length > 0) captured.firstByteAt ??= epochMs();
    return writeFragmented(res, data, faults.fragmentBytes);
  };
  const writeComment = (data: string) => writeFragmented(res, data, faults.fragmentBytes);
  return {
    method: req.method ?? 'GET',
    url,
    headers: req.headers,
    params,
    body,
    rawBody,
    faults,
    async send(response, answerMs = 0) {
      if (faults.delayHeadersMs) await sleep(faults.delayHeadersMs);
      if (faults.delayFirstTokenMs) await sleep(faults.delayFirstTokenMs);
      if (answerMs > 0) await sleep(Math.min(answerMs, MAX_ANSWER_PACING_MS));
      const ok = response.status < 400;
      let text = response.body;
      if (ok && faults.malformedIndex !== undefined) text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
      res.writeHead(response.status, { 'Content-Type': 'application/json', ...response.headers });
      if (ok && faults.resetAfterChunks !== undefined) {
        await write(text.slice(0, Math.floor(text.length / 2)));
        await resetAfterDelivery(res);
        return;
      }
      await write(text);
      res.end();
    },
    stream: (headers, pacing) => openStream('text/event-stream', undefined, headers, pacing),
    framedStream: (contentType, frame, headers, pacing) => openStream(contentType, frame, headers, pacing),
  };

  async function openStream(
    contentType: string,
    frame: ((data: string, name: string | undefined) => Uint8Array) | undefined,
    headers: Record<string, string> | undefined,
    pacing: Pacing = NO_PACING,
  ): Promise<SimStream> {
    if (faults.delayHeadersMs) await sleep(faults.delayHeadersMs);
    res.writeHead(200, {
      'Content-Type': contentType,
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      ...headers,
    });
    res.flushHeaders();
    let sent = 0;
    let gone = false;
    res.on('close', () => (gone = true));
    const cut = async () => {
      gone = true;
      await resetAfterDelivery(res);
    };
    const pace = streamPace(pacing);
    const send = async (data: string, name: string | undefined, token: boolean) => {
      if (gone) return false;
      if (sent === 0 && faults.delayFirstTokenMs) await sleep(faults.delayFirstTokenMs);
      await pace(token);
      if (gone) return false;
      if (faults.resetAfterChunks !== undefined && sent >= faults.resetAfterChunks) {
        await cut();
        return false;
      }
      const payload = faults.malformedIndex === sent ? data.slice(0, Math.max(1, Math.floor(data.length / 2))) : data;
      sent++;
      await write(frame ? frame(payload, name) : `${name ? `event: ${name}\n` : ''}data: ${payload}\n\n`);
      return !gone;
    };
    return {
      event: (data, name) => send(data, name, false),
      token: (data, name) => send(data, name, true),
      async comment(text) {
        if (gone) return false;
        if (!frame) await writeComment(`: ${text}\n\n`);
        return !gone;
      },
      end() {
        if (!gone) res.end();
      },
      reset: () => void cut(),
    };
  }
}

/**
 * The waits of a paced stream: the time to the first token before its first event, then the
 * time between tokens before each token event after the first, while the answer's pacing
 * budget lasts.
 */
function streamPace(pacing: Pacing): (token: boolean) => Promise<void> {
  let started = false;
  let tokens = 0;
  let budget = MAX_ANSWER_PACING_MS;
  const wait = async (ms: number) => {
    const waited = Math.min(ms, budget);
    budget -= waited;
    if (waited > 0) await sleep(waited);
  };
  return async (token) => {
    if (!started) {
      started = true;
      await wait(pacing.firstTokenMs);
    }
    if (!token) return;
    if (tokens++ > 0) await wait(pacing.tokenMs);
  };
}

/**
 * A TCP reset discards whatever the peer has not read yet, so "reset after n events" would
 * race with delivery of those events. Let them arrive first, then cut.
 */
async function resetAfterDelivery(res: ServerResponse): Promise<void> {
  await new Promise<void>((done) => res.socket?.write('', () => done()) ?? done());
  await sleep(25);
  res.socket?.resetAndDestroy();
}

/** Splits a write into pieces that reach the peer as separate reads. */
async function writeFragmented(
  res: ServerResponse,
  data: string | Uint8Array,
  pieceBytes: number | undefined,
): Promise<void> {
  const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.length);
  if (!pieceBytes || bytes.length <= pieceBytes) {
    res.write(bytes);
    return;
  }
  for (let offset = 0; offset < bytes.length; offset += pieceBytes) {
    res.write(bytes.subarray(offset, offset + pieceBytes));
    await sleep(1);
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

function sendPlain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain' }).end(text);
}
