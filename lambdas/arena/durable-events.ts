/**
 * Numbers a session's events (1, 2, 3...: the SSE `id:` field) and appends them to the session
 * log before they go any further: an event a client has seen is always one a reconnecting
 * client can replay, and one a host taking the session over will find.
 *
 * Pages, not one write per event: an answer's deltas arrive every few tens of milliseconds, so
 * they wait (at most `pageIntervalMs` after the last write) and share a page; an answer's first
 * delta does not wait (the time to its first word is what a reader feels). Every other event
 * is written at once, with whatever waits before it, except the judging results
 * (`voting_complete`, `leaderboard_update`), which share a page with the `round_complete` that
 * follows them: a round's result is in the log whole or not at all, so a host resuming the
 * session either has it or counts it again from the votes.
 */
import type { ArenaEvent } from './arena-events.js';

export interface SequencedEvent {
  readonly id: number;
  readonly event: ArenaEvent;
}

/** Appends one page of consecutive events; false when another host has taken the session. */
export type PageAppender = (page: readonly SequencedEvent[]) => Promise<boolean>;

export interface DurableEventsOptions {
  /** The id the first event gets: 1 for a new session, the log's last id + 1 on resumption. */
  readonly firstId: number;
  /** Deltas wait at most this long after the previous write. */
  readonly pageIntervalMs: number;
  /** A page is written once its events' JSON reaches this size (an item holds 400 KB). */
  readonly maxPageBytes: number;
  readonly now: () => number;
}

/** Thrown when the log already has the ids this host was about to write: it no longer owns the session. */
export class SessionTakenOver extends Error {
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} is played by another host now`);
    this.name = 'SessionTakenOver';
  }
}

const WAITING_KINDS: ReadonlySet<ArenaEvent['type']> = new Set(['agent_delta', 'search_content']);
const GROUPED_KINDS: ReadonlySet<ArenaEvent['type']> = new Set(['voting_complete', 'leaderboard_update']);

/** Page-sized defaults: a few writes a second per session while answers stream. */
export const DEFAULT_PAGE_INTERVAL_MS = 100;
export const DEFAULT_MAX_PAGE_BYTES = 64 * 1024;

export async function* durableEvents(
  sessionId: string,
  events: AsyncIterable<ArenaEvent>,
  append: PageAppender,
  options: DurableEventsOptions,
): AsyncGenerator<SequencedEvent> {
  const iterator = events[Symbol.asyncIterator]();
  let nextId = options.firstId;
  let page: SequencedEvent[] = [];
  let pageBytes = 0;
  let lastWrite = Number.NEGATIVE_INFINITY;
  let pending: Promise<IteratorResult<ArenaEvent>> | undefined;
  // The answers (round/agent) whose text has begun: their later deltas may wait for a page.
  const begun = new Set<string>();

  const write = async () => {
    const written = page;
    page = [];
    pageBytes = 0;
    lastWrite = options.now();
    if (!(await append(written))) throw new SessionTakenOver(sessionId);
    return written;
  };

  try {
    for (;;) {
      pending ??= iterator.next();
      const onlyWaiting = page.length > 0 && page.every((entry) => WAITING_KINDS.has(entry.event.type));
      const dueInMs = onlyWaiting ? lastWrite + options.pageIntervalMs - options.now() : undefined;
      if (dueInMs !== undefined && dueInMs <= 0) {
        yield* await write();
        continue;
      }
      const result = dueInMs === undefined ? await pending : await within(pending, dueInMs);
      if (result === undefined) {
        yield* await write();
        continue;
      }
      pending = undefined;
      if (result.done) {
        if (page.length > 0) yield* await write();
        return;
      }
      const event = result.value;
      page.push({ id: nextId++, event });
      pageBytes += JSON.stringify(event).length;
      const type = event.type;
      const waits = (WAITING_KINDS.has(type) && !firstOfItsAnswer(event, begun)) || GROUPED_KINDS.has(type);
      if (!waits || pageBytes >= options.maxPageBytes) yield* await write();
      else if (WAITING_KINDS.has(type) && options.now() - lastWrite >= options.pageIntervalMs) yield* await write();
    }
  } finally {
    await iterator.return?.();
  }
}

/** Whether `event` is the first delta of its answer (and notes it): it is written at once. */
function firstOfItsAnswer(event: ArenaEvent, begun: Set<string>): boolean {
  if (event.type !== 'agent_delta') return false;
  const answer = `${event.round}/${event.agent}`;
  if (begun.has(answer)) return false;
  begun.add(answer);
  return true;
}

/** The promise's result, or undefined when `ms` pass first (the promise is left pending for later). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
