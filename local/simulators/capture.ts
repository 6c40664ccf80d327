import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * What a simulator remembers of the requests it received (`GET /__sim/requests`), bounded so
 * that a long load test cannot grow the services process without limit: the latest
 * MAX_CAPTURED requests, holding at most MAX_CAPTURED_BODY_BYTES of bodies together (the
 * oldest dropped first), and a body above MAX_BODY_BYTES is kept as a summary only.
 */
export const MAX_CAPTURED = 1000;
export const MAX_CAPTURED_BODY_BYTES = 16 * 1024 * 1024;
export const MAX_BODY_BYTES = 1024 * 1024;

export interface CapturedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  readonly at: string;
  /**
   * Set once the exchange is over: true when the caller closed the connection before the
   * answer was complete (a gateway that abandons a stream must show up here).
   */
  closedBeforeEnd?: boolean;
  /** When the request arrived (its headers read), in epoch milliseconds (see epochMs). */
  readonly receivedAt: number;
  /**
   * When the first body byte of the answer was written; absent until then. SSE comments (an
   * upstream's keep-alives) are not the answer and do not count.
   */
  firstByteAt?: number;
  /** When the answer was complete or the connection closed, whichever came first. */
  endedAt?: number;
}

/**
 * Epoch milliseconds with sub-millisecond precision, comparable between processes on one
 * machine (a benchmark client reads the same clock): `Date.now()` has whole milliseconds only.
 */
export const epochMs = (): number => performance.timeOrigin + performance.now();

/** Body bytes each captured request holds; a WeakMap, since callers may empty the list. */
const bodyBytes = new WeakMap<CapturedRequest, number>();

export function capture(
  req: IncomingMessage,
  url: URL,
  rawBody: string,
  body: unknown,
  receivedAt: number,
): CapturedRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const bytes = Buffer.byteLength(rawBody);
  const kept = bytes <= MAX_BODY_BYTES;
  const captured: CapturedRequest = {
    method: req.method ?? 'GET',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers,
    body: kept ? body : { omitted: `a body of ${bytes} bytes, over the ${MAX_BODY_BYTES}-byte capture limit` },
    at: new Date().toISOString(),
    receivedAt,
  };
  bodyBytes.set(captured, kept ? bytes : 0);
  return captured;
}

/** Appends `captured`, then drops the oldest requests until both bounds hold. */
export function keepCaptured(requests: CapturedRequest[], captured: CapturedRequest): void {
  requests.push(captured);
  let total = requests.reduce((sum, request) => sum + (bodyBytes.get(request) ?? 0), 0);
  while (requests.length > MAX_CAPTURED || (total > MAX_CAPTURED_BODY_BYTES && requests.length > 1)) {
    total -= bodyBytes.get(requests.shift()!) ?? 0;
  }
}
