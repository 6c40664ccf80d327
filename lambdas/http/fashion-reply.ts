import { randomUUID } from 'node:crypto';
import type { FashionStreamEvent } from '../providers/fashion/fashion-subscribe.js';
import { errorBody } from './error-body.js';
import { HttpError } from './errors.js';
import { toFashionHttpError } from './fashion-error-mapping.js';
import type { Reply, SseFrame } from './reply.js';

/**
 * Fashion responses (spec 2.14): every one, success or error, carries `meta {requestId,
 * timestamp}` next to the usual envelope, so fashion handlers build their replies here instead
 * of throwing errors for the generic error writer.
 */

export interface FashionMeta {
  readonly requestId: string;
  /** ISO 8601. */
  readonly timestamp: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The spec makes `requestId` a UUID; a caller-chosen X-Request-ID that is not one is kept in
 * the response's header by the platform, and the meta gets a fresh UUID.
 */
export function fashionMeta(requestId: string, now: Date = new Date()): FashionMeta {
  return { requestId: UUID.test(requestId) ? requestId : randomUUID(), timestamp: now.toISOString() };
}

export function fashionReply(data: unknown, meta: FashionMeta, status = 200, headers?: Record<string, string>): Reply {
  return { kind: 'json', status, body: { success: true, data, meta }, headers };
}

/**
 * A domain error (FashionError, IdempotencyError) or HttpError as the error envelope plus
 * meta, with its headers (Retry-After); any other error is rethrown for the platform's 500.
 */
export function fashionErrorReply(error: unknown, meta: FashionMeta, headers: Record<string, string> = {}): Reply {
  const mapped = toFashionHttpError(error);
  if (!(mapped instanceof HttpError)) throw error;
  return {
    kind: 'json',
    status: mapped.status,
    body: { ...(errorBody('envelope', mapped) as Record<string, unknown>), meta },
    headers: { ...headers, ...mapped.headers },
  };
}

/** The public path a caller polls once a subscribe stream has run its 2 minutes. */
export const fashionStatusPath = (predictionId: string) => `/api/v1/fashion/status/${encodeURIComponent(predictionId)}`;

/**
 * Spec 6.3: each event as `event: fashion` + JSON, then `data: [DONE]` (under the same event
 * name, so an EventSource listening for `fashion` sees the end too).
 */
export async function* fashionFrames(events: AsyncIterable<FashionStreamEvent>): AsyncGenerator<SseFrame> {
  for await (const event of events) {
    yield {
      event: 'fashion',
      data: event.type === 'still_running' ? { ...event, status_url: fashionStatusPath(event.prediction_id) } : event,
    };
  }
  yield { event: 'fashion', data: '[DONE]' };
}
