import { createParser } from 'eventsource-parser';
import type { LocalGateway } from '../../../local/child-runtime.js';
import type { StreamEvent } from '../../support/arena-stream-validator.js';

/** An arena stream as a browser reads it: fetch, then eventsource-parser over the body. */
export interface ArenaStream {
  readonly status: number;
  readonly headers: Headers;
  readonly events: StreamEvent[];
  /** The body text when the answer was not a stream (an error). */
  readonly text: string;
  /** The last frame, when the stream ended by handing the session on (no id: not a session event). */
  readonly handoff?: Record<string, unknown>;
  /** The stream's `retry:` hint, if it sent one. */
  readonly retry?: number;
}

export interface StreamOptions {
  readonly headers?: Record<string, string>;
  /** Called on each event; return true to hang up there (a client leaving mid-session). */
  readonly onEvent?: (event: StreamEvent) => boolean | void;
}

export async function arenaStream(
  gateway: LocalGateway,
  path: string,
  key: string,
  body: unknown,
  options: StreamOptions = {},
): Promise<ArenaStream> {
  return readArenaStream(
    gateway.url(path),
    {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...options.headers },
      body: JSON.stringify(body),
    },
    options,
  );
}

/** `GET /api/v1/sessions/{id}/events`, after `lastEventId` (sent as EventSource sends it) when given. */
export async function sessionEvents(
  gateway: LocalGateway,
  sessionId: string,
  key: string,
  lastEventId?: number,
  options: StreamOptions = {},
): Promise<ArenaStream> {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}`, ...options.headers };
  if (lastEventId !== undefined) headers['Last-Event-ID'] = String(lastEventId);
  return readArenaStream(gateway.url(`/api/v1/sessions/${sessionId}/events`), { headers }, options);
}

async function readArenaStream(url: string, init: RequestInit, options: StreamOptions): Promise<ArenaStream> {
  const controller = new AbortController();
  const response = await fetch(url, { ...init, signal: controller.signal });
  const events: StreamEvent[] = [];
  if (!response.headers.get('content-type')?.startsWith('text/event-stream'))
    return { status: response.status, headers: response.headers, events, text: await response.text() };
  let left = false;
  let handoff: Record<string, unknown> | undefined;
  let retry: number | undefined;
  const parser = createParser({
    onRetry: (ms) => (retry = ms),
    onEvent: (message) => {
      if (left) return;
      if (message.id === undefined) {
        handoff = JSON.parse(message.data) as Record<string, unknown>;
        return;
      }
      const event = { id: Number(message.id), event: JSON.parse(message.data) } as StreamEvent;
      events.push(event);
      if (options.onEvent?.(event)) {
        left = true;
        controller.abort();
      }
    },
  });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      if (left) break;
    }
  } catch (error) {
    if (!left) throw error;
  }
  return {
    status: response.status,
    headers: response.headers,
    events,
    text: '',
    ...(handoff ? { handoff } : {}),
    ...(retry !== undefined ? { retry } : {}),
  };
}

export const eventsOf = (stream: ArenaStream, type: string) =>
  stream.events.map((e) => e.event).filter((e) => e.type === type) as Record<string, any>[];
