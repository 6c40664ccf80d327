/**
 * What a handler returns. Handlers describe the response; the response writer alone turns it
 * into bytes and headers, so no handler builds an envelope or a header by hand.
 */

export interface SseFrame {
  /** The SSE `id:` field (clients send the last one back as Last-Event-ID). */
  readonly id?: string;
  readonly event?: string;
  /** The SSE `retry:` field: milliseconds an EventSource waits before it reconnects. */
  readonly retry?: number;
  /** Objects are sent as JSON; strings as they are (e.g. `[DONE]`). */
  readonly data: unknown;
}

export type Reply =
  | {
      readonly kind: 'json';
      readonly status: number;
      readonly body: unknown;
      readonly headers?: Record<string, string>;
    }
  | { readonly kind: 'empty'; readonly status: number; readonly headers?: Record<string, string> }
  | { readonly kind: 'sse'; readonly events: AsyncIterable<SseFrame>; readonly headers?: Record<string, string> }
  | {
      readonly kind: 'binary';
      readonly status: number;
      readonly contentType: string;
      readonly body: Uint8Array | AsyncIterable<Uint8Array>;
      readonly headers?: Record<string, string>;
    };

/** `{success:true, data}`: the envelope of non-gateway JSON routes (docs/interface.md §2.14). */
export const envelope = (data: unknown, status = 200, headers?: Record<string, string>): Reply => ({
  kind: 'json',
  status,
  body: { success: true, data },
  headers,
});

/** A bare JSON object: gateway routes answer OpenAI-shaped bodies without the envelope. */
export const bare = (body: unknown, status = 200, headers?: Record<string, string>): Reply => ({
  kind: 'json',
  status,
  body,
  headers,
});

export const noContent = (headers?: Record<string, string>): Reply => ({ kind: 'empty', status: 204, headers });

export const sse = (events: AsyncIterable<SseFrame>, headers?: Record<string, string>): Reply => ({
  kind: 'sse',
  events,
  headers,
});

export const binary = (
  contentType: string,
  body: Uint8Array | AsyncIterable<Uint8Array>,
  status = 200,
  headers?: Record<string, string>,
): Reply => ({ kind: 'binary', status, contentType, body, headers });
