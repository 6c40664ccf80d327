import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { UpstreamError, type HeaderReader } from './upstream-failure.js';

/**
 * Plain node:http(s) with keep-alive agents: upstream calls reuse warm connections (no TLS
 * handshake per request), and the hot path avoids fetch's extra stream layers.
 */
const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 256, keepAliveMsecs: 10_000 });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 256, keepAliveMsecs: 10_000 });

export interface TransportRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** Aborts the request and its response body. */
  readonly signal: AbortSignal;
}

export interface TransportResponse {
  readonly status: number;
  readonly headers: HeaderReader;
  /** The body as it arrives; errors with UpstreamError(`connection`) on a cut. */
  readonly body: AsyncIterable<Buffer>;
  text(): Promise<string>;
}

/** Resolves when the response headers arrive; rejects with UpstreamError or the abort reason. */
export function send(request: TransportRequest): Promise<TransportResponse> {
  return new Promise((resolve, reject) => {
    if (request.signal.aborted) return reject(request.signal.reason);
    const url = new URL(request.url);
    const secure = url.protocol === 'https:';
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    const req = (secure ? httpsRequest : httpRequest)(
      url,
      {
        method: request.method,
        agent: secure ? httpsAgent : httpAgent,
        headers: body ? { ...request.headers, 'content-length': String(body.length) } : request.headers,
        signal: request.signal,
      },
      (res) => resolve(toResponse(res, request.signal)),
    );
    req.on('error', (error) => reject(request.signal.aborted ? request.signal.reason : connectionError(error)));
    req.end(body);
  });
}

function toResponse(res: IncomingMessage, signal: AbortSignal): TransportResponse {
  const headers = nodeHeaders(res.headers);
  const body = readBody(res, signal);
  return {
    status: res.statusCode ?? 0,
    headers,
    body,
    text: () => readText(res, signal),
  };
}

/**
 * The whole body, read from the response's events rather than through `body`: the async
 * iterators (the generator over Node's own) cost tens of microseconds of CPU per answer, on
 * every non-streamed call. The same failures as `body`'s.
 */
function readText(res: IncomingMessage, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const fail = (error: unknown) => reject(signal.aborted ? signal.reason : connectionError(error));
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.once('error', fail);
    res.once('end', () => {
      if (res.complete) resolve(Buffer.concat(chunks).toString('utf8'));
      else reject(connectionError(new Error('response ended early')));
    });
    // Closed without its end (and without an error): what the iterator reports as a premature close.
    res.once('close', () => {
      if (!res.readableEnded) fail(new Error('Premature close'));
    });
  });
}

async function* readBody(res: IncomingMessage, signal: AbortSignal): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of res) yield chunk as Buffer;
  } catch (error) {
    throw signal.aborted ? signal.reason : connectionError(error);
  }
  // A response cut by a reset can end without an error event: the length or framing tells.
  if (!res.complete) throw connectionError(new Error('response ended early'));
}

function connectionError(error: unknown): UpstreamError {
  const message = error instanceof Error ? error.message : String(error);
  return new UpstreamError({ kind: 'connection', message: `upstream connection failed: ${message}` });
}

/** Node already lower-cases response header names: reading them needs no `Headers` copy. */
function nodeHeaders(raw: IncomingMessage['headers']): HeaderReader {
  const value = (name: string) => {
    const found = raw[name.toLowerCase()];
    return found === undefined ? null : Array.isArray(found) ? found.join(', ') : found;
  };
  return { get: value, has: (name) => value(name) !== null };
}
