import { Readable } from 'node:stream';
import type { Reply, SseFrame } from './reply.js';

/** Lambda's buffered proxy result (both the REST v1 and the function URL v2 doors accept it). */
export interface ProxyResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded: boolean;
}

/** What middy's streamify mode pipes: the prelude (status and headers) then the body. */
export interface StreamResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string | Readable;
}

export interface WriterOptions {
  /** Idle gap after which an SSE comment keeps proxies (API Gateway: 5 min idle) from closing. */
  readonly heartbeatMs: number;
  /** Called once the stream is over, finished or abandoned by the client. */
  readonly onClose?: () => void;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
};

export function toProxyResult(reply: Reply, headers: Record<string, string>): ProxyResult {
  switch (reply.kind) {
    case 'json':
      return {
        statusCode: reply.status,
        headers: { ...headers, 'Content-Type': JSON_TYPE, ...reply.headers },
        body: JSON.stringify(reply.body),
        isBase64Encoded: false,
      };
    case 'empty':
      return { statusCode: reply.status, headers: { ...headers, ...reply.headers }, body: '', isBase64Encoded: false };
    case 'binary':
      if (!(reply.body instanceof Uint8Array)) throw new Error('a streamed binary body needs a streaming route');
      return {
        statusCode: reply.status,
        headers: { ...headers, 'Content-Type': reply.contentType, ...reply.headers },
        body: Buffer.from(reply.body).toString('base64'),
        isBase64Encoded: true,
      };
    case 'sse':
      throw new Error('an SSE reply needs a streaming route');
  }
}

export function toStreamResult(reply: Reply, headers: Record<string, string>, options: WriterOptions): StreamResult {
  switch (reply.kind) {
    case 'json': {
      // A whole body of known length: say so, and the stream needs no chunked framing.
      const { statusCode, headers: all, body } = toProxyResult(reply, headers);
      return { statusCode, headers: { ...all, 'Content-Length': String(Buffer.byteLength(body)) }, body };
    }
    case 'empty': {
      const { statusCode, headers: all, body } = toProxyResult(reply, headers);
      return { statusCode, headers: all, body };
    }
    case 'binary':
      return {
        statusCode: reply.status,
        headers: { ...headers, 'Content-Type': reply.contentType, ...reply.headers },
        body:
          reply.body instanceof Uint8Array
            ? Readable.from([Buffer.from(reply.body)])
            : closingAtOnce(Readable.from(endingWith(reply.body, options.onClose)), options.onClose),
      };
    case 'sse':
      return {
        statusCode: 200,
        headers: { ...headers, ...SSE_HEADERS, ...reply.headers },
        body: closingAtOnce(
          Readable.from(withHeartbeats(reply.events, options.heartbeatMs, options.onClose)),
          options.onClose,
        ),
      };
  }
}

/**
 * A client that leaves destroys the body while the frame generator may be waiting on its
 * producer (an arena agent's first token, a slow upstream). The generator's own cleanup runs
 * only once that wait ends, so until then every upstream call would go on for nobody: the body's
 * destruction ends the call at once instead.
 */
function closingAtOnce(body: Readable, onClose: (() => void) | undefined): Readable {
  if (!onClose) return body;
  const destroy = body._destroy.bind(body);
  body._destroy = (error, callback) => {
    onClose();
    destroy(error, callback);
  };
  return body;
}

/** The body's bytes, then `onClose` however the body ends. */
async function* endingWith(body: AsyncIterable<Uint8Array>, onClose: (() => void) | undefined) {
  try {
    yield* body;
  } finally {
    onClose?.();
  }
}

export function formatSseFrame(frame: SseFrame): string {
  const data = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data);
  const lines = data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('');
  const id = frame.id === undefined ? '' : `id: ${frame.id}\n`;
  const retry = frame.retry === undefined ? '' : `retry: ${frame.retry}\n`;
  return `${retry}${id}${frame.event ? `event: ${frame.event}\n` : ''}${lines}\n`;
}

export const HEARTBEAT_FRAME = ': keep-alive\n\n';

/**
 * Formats frames, inserting a comment whenever no frame was produced for `heartbeatMs`.
 * The pending `next()` is kept across heartbeats so no frame is ever dropped.
 *
 * One timer serves the whole stream, restarted (`refresh`) at each wait: a timer and a race
 * made per frame were a measurable share of a stream's CPU, in Lambda as locally.
 */
export async function* withHeartbeats(
  events: AsyncIterable<SseFrame>,
  heartbeatMs: number,
  onClose?: () => void,
): AsyncGenerator<string> {
  const iterator = events[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<SseFrame>> | undefined;
  // The wait in progress, woken by the timer; undefined between waits, when a firing is moot.
  let wake: ((result: 'tick') => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    for (;;) {
      pending ??= iterator.next();
      if (timer) timer.refresh();
      else timer = setTimeout(() => wake?.('tick'), heartbeatMs);
      const waiting = pending;
      const result = await new Promise<IteratorResult<SseFrame> | 'tick'>((resolve, reject) => {
        wake = resolve;
        waiting.then(resolve, reject);
      });
      wake = undefined;
      if (result === 'tick') {
        yield HEARTBEAT_FRAME;
        continue;
      }
      pending = undefined;
      if (result.done) return;
      yield formatSseFrame(result.value);
    }
  } finally {
    clearTimeout(timer);
    // The client went away or the stream ended. Abort first: a producer parked on an upstream
    // read cannot run its own cleanup until that read settles.
    onClose?.();
    await iterator.return?.();
  }
}
