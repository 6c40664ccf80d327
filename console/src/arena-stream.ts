/**
 * Follows an arena session's event stream (docs/interface.md §6.1, §4.3) to its end, whatever
 * happens to the connection: the battle or fight call starts it; when that stream breaks, or
 * hands the session on (`stream_handoff`), the session's events route is read from the last
 * event seen (`Last-Event-ID`), so every event arrives once and in order. fetch rather than
 * EventSource: the key goes in a header, and EventSource sends none.
 */
import { ApiFailure } from './console-http';

export interface ArenaEventData {
  readonly type: string;
  readonly [field: string]: unknown;
}

export interface FollowOptions {
  readonly key: string;
  /** The starting call (POST /api/v1/battle or /fight); absent to replay or rejoin `sessionId`. */
  readonly start?: { readonly path: string; readonly body: unknown };
  readonly sessionId?: string;
  readonly onEvent: (event: ArenaEventData) => void;
  /** The connection state, for the page to say so. */
  readonly onConnection?: (state: 'live' | 'reconnecting') => void;
  readonly signal: AbortSignal;
}

const TERMINAL_ERRORS = new Set(['session_cancelled', 'session_timeout', 'session_interrupted']);
const RETRY_MS = [250, 500, 1000, 2000, 4000];

export async function followSession(options: FollowOptions): Promise<void> {
  let sessionId = options.sessionId;
  let lastEventId: string | undefined;
  let ended = false;
  let failures = 0;
  const seen = (event: ArenaEventData, id: string | undefined) => {
    if (id !== undefined) {
      // An id at or before the last one is a repeat the reconnection already delivered.
      if (lastEventId !== undefined && Number(id) <= Number(lastEventId)) return;
      lastEventId = id;
    }
    if (event.type === 'session_start' && typeof event['sessionId'] === 'string') sessionId = event['sessionId'];
    if (event.type === 'stream_handoff') return;
    if (event.type === 'session_complete') ended = true;
    if (event.type === 'error' && TERMINAL_ERRORS.has(String(event['code']))) ended = true;
    options.onEvent(event);
  };

  let first = options.start !== undefined;
  while (!ended && !options.signal.aborted) {
    try {
      const headers: Record<string, string> = { Authorization: `Bearer ${options.key}`, Accept: 'text/event-stream' };
      let response: Response;
      if (first && options.start) {
        response = await fetch(options.start.path, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: JSON.stringify(options.start.body),
          signal: options.signal,
        });
      } else {
        if (!sessionId) throw new Error('The session never began: nothing to reconnect to.');
        if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId;
        response = await fetch(`/api/v1/sessions/${encodeURIComponent(sessionId)}/events`, {
          headers,
          signal: options.signal,
        });
      }
      if (!response.ok) throw await refusal(response);
      first = false;
      sessionId ??= response.headers.get('X-Session-ID') ?? undefined;
      options.onConnection?.('live');
      failures = 0;
      const before = lastEventId;
      await readEvents(response, seen);
      // A stream that ended with nothing new, and no last event seen: the session may have ended
      // in a way this page does not know as final; its state says whether to go on.
      if (!ended && lastEventId === before && sessionId && (await sessionOver(sessionId, headers))) return;
    } catch (error) {
      if (options.signal.aborted) return;
      // The starting call is never sent twice (it would start another session), and a refusal
      // (400, 402, 404…) is the caller's to read; a broken stream or a busy gateway is retried.
      if (first || (error instanceof ApiFailure && error.status < 500 && error.status !== 429)) throw error;
    }
    if (ended || options.signal.aborted) return;
    options.onConnection?.('reconnecting');
    await pause(RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]!, options.signal);
  }
}

async function sessionOver(sessionId: string, headers: Record<string, string>): Promise<boolean> {
  const response = await fetch(`/api/v1/sessions/${encodeURIComponent(sessionId)}`, {
    headers: { Authorization: headers['Authorization']!, Accept: 'application/json' },
  });
  if (!response.ok) return false;
  const body = (await response.json()) as { data?: { status?: string } };
  return body.data?.status !== undefined && body.data.status !== 'running';
}

async function refusal(response: Response): Promise<ApiFailure> {
  const body = (await response.json().catch(() => undefined)) as
    { error?: { code?: string; message?: string; field?: string } } | undefined;
  return new ApiFailure(
    response.status,
    body?.error?.code ?? `HTTP_${response.status}`,
    body?.error?.message ?? `The gateway answered ${response.status}`,
    body?.error?.field,
  );
}

/** Server-sent events off a fetch body: `id:` and `data:` lines, frames ended by a blank line. */
async function readEvents(response: Response, onEvent: (event: ArenaEventData, id: string | undefined) => void) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let id: string | undefined;
  let data: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let newline: number;
    while ((newline = buffer.search(/\r?\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer[newline] === '\r' ? 2 : 1));
      if (line === '') {
        if (data.length > 0) onEvent(JSON.parse(data.join('\n')) as ArenaEventData, id);
        id = undefined;
        data = [];
      } else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      else if (line.startsWith('id:')) id = line.slice(3).trim();
    }
  }
}

/** Waits before the next attempt, or less once the browser says it is back online. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      removeEventListener('online', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    addEventListener('online', done);
    signal.addEventListener('abort', done);
  });
}
