/**
 * Reading a session from its log (`GET /api/v1/sessions/{id}/events`): every event after the
 * reader's last one, then, while the session runs, each new one as its host logs it. A reader
 * gets each event once and in order whichever host wrote it, during the session or after.
 *
 * A live session is followed by polling the log: an empty read costs a query and the META's
 * read, a few a second per reader, and needs nothing beside DynamoDB. The follow ends when the
 * session is over and every event is delivered, or when this reader's own time is up (the
 * caller reconnects with the last id it got).
 */
import type { EventsRead, SessionMeta } from '../store/session-log.js';
import type { SequencedEvent } from './durable-events.js';
import type { ArenaEvent } from './arena-events.js';

export interface FollowDeps {
  readonly readEvents: (afterId: number, maxEvents: number) => Promise<EventsRead>;
  readonly readMeta: () => Promise<SessionMeta | undefined>;
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly now: () => number;
  /** How often a live session's log is read. */
  readonly pollMs: number;
  /** Epoch ms: the follow stops before this (the reader's function deadline, less a margin). */
  readonly stopAt: number;
}

/** Why a follow ended: the session is over (all delivered), or the reader must reconnect. */
export type FollowEnd = 'ended' | 'reconnect';

const READ_BATCH_EVENTS = 500;

/** What an EventSource waits before it reconnects after a stream handed its session on. */
export const HANDOFF_RETRY_MS = 1_000;

/**
 * The last frame's data of a stream that ends before its session does (the live stream at its
 * host's limit, the events route at its own): not a session event, so it has no id.
 */
export const handoffEvent = (sessionId: string, lastEventId: number) => ({
  type: 'stream_handoff' as const,
  sessionId,
  lastEventId,
  events: `/api/v1/sessions/${sessionId}/events`,
});

export async function* followSession(
  afterId: number,
  deps: FollowDeps,
  signal: AbortSignal,
): AsyncGenerator<SequencedEvent, FollowEnd> {
  let last = afterId;
  let endSeen = false;
  for (;;) {
    if (signal.aborted) return 'reconnect';
    const read = await deps.readEvents(last, READ_BATCH_EVENTS);
    for (const { id, event } of read.events) {
      last = id;
      yield { id, event: event as ArenaEvent };
    }
    if (read.more) continue;
    const meta = await deps.readMeta();
    if (!meta) return 'ended';
    if (meta.status !== 'running') {
      // The end is recorded after the last page: one more read catches what came between.
      if (endSeen || meta.lastId === undefined || last >= meta.lastId) return 'ended';
      endSeen = true;
      continue;
    }
    if (deps.now() + deps.pollMs >= deps.stopAt) return 'reconnect';
    await deps.sleep(deps.pollMs, signal);
  }
}
