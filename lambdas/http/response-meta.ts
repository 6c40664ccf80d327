import { randomUUID } from 'node:crypto';

/**
 * `meta {requestId, timestamp}`, which docs/interface.md §2.14 puts on every fashion response next to the
 * envelope. Routes flagged `envelopeMeta` in the manifest get it from the response writer, on
 * successes and errors alike, so no handler builds it.
 */
export interface ResponseMeta {
  readonly requestId: string;
  /** ISO 8601. */
  readonly timestamp: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * docs/interface.md §2.14 makes `requestId` a UUID: the call's X-Request-ID when it is one (the
 * gateway's own always are), else a fresh one; a caller's non-UUID id stays in the X-Request-ID
 * header.
 */
export function responseMeta(requestId: string, now: Date = new Date()): ResponseMeta {
  return { requestId: UUID.test(requestId) ? requestId : randomUUID(), timestamp: now.toISOString() };
}

/** The body with `meta` added, when it is an envelope (`{success, ...}`); any other body as it is. */
export function withMeta(body: unknown, meta: ResponseMeta): unknown {
  const isEnvelope = body !== null && typeof body === 'object' && 'success' in body;
  return isEnvelope ? { ...body, meta } : body;
}
