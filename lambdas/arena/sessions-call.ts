/**
 * The HTTP adapters of the session routes: read a session's events again (and follow it while
 * it runs), its state, the account's list of sessions, and cancel one. Sessions are the
 * account's: any of its keys reads them, and another account's session is answered as none.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { getArenaSession, listArenaSessions, type ArenaSessionRecord } from '../store/arena-sessions.js';
import type { DynamoDb } from '../store/dynamodb-client.js';
import { tenantClients } from '../store/tenant-sessions.js';
import { cancelSession, getSessionMeta, readSessionEvents, type SessionMeta } from '../store/session-log.js';
import { accountOf, type AccountCall } from '../http/call.js';
import { envelope, sse, type Reply, type SseFrame } from '../http/reply.js';
import { ArenaError, invalidArenaRequest } from './arena-errors.js';
import { followSession, handoffEvent, HANDOFF_RETRY_MS, type FollowEnd } from './session-follow.js';
import type { SequencedEvent } from './durable-events.js';

/** How often a followed live session's log is read. */
const FOLLOW_POLL_MS = 250;
/** The follow ends this long before the function's deadline, so the stream ends cleanly. */
const FOLLOW_END_MARGIN_MS = 5_000;
/** When the function's deadline is unknown (no Lambda context): the route's own bound. */
const FALLBACK_FOLLOW_MS = 900_000;
const EVENT_ID = /^(0|[1-9]\d{0,9})$/;
/** The query parameters of the events route and of the list (any other is refused). */
export const SESSION_EVENTS_QUERY = ['lastEventId'] as const;
export const SESSIONS_LIST_QUERY = ['limit', 'cursor'] as const;
const MAX_LIST = 100;
const DEFAULT_LIST = 20;

/**
 * The caller's session and the tenant-session client it is read with: the log is keyed by the
 * account (lambdas/store/session-log.ts), so another account's session is not found, and the
 * tenant session could not read it if it were asked to.
 */
async function ownedSession(call: AccountCall): Promise<{ meta: SessionMeta; db: DynamoDb }> {
  const sessionId = call.req.pathParams['id'] ?? '';
  const { accountId } = accountOf(call);
  if (!sessionId.startsWith('arena-')) throw sessionNotFound();
  const { dynamo: db } = await tenantClients(accountId);
  const meta = await getSessionMeta({ accountId, sessionId }, Date.now(), db);
  if (!meta || meta.accountId !== accountId) throw sessionNotFound();
  return { meta, db };
}

const sessionNotFound = () => new ArenaError('session_not_found', 'session not found', { field: 'id' });

/** The last event id the reader has: the `Last-Event-ID` header (EventSource's), else `lastEventId`. */
function lastEventIdOf(call: AccountCall): number {
  const header = call.req.headers['last-event-id'];
  const [field, value] =
    header !== undefined ? ['Last-Event-ID', header.trim()] : ['lastEventId', call.req.query['lastEventId']];
  if (value === undefined || value === '') return 0;
  if (!EVENT_ID.test(value))
    throw invalidArenaRequest(field, `${field}: must be an event id (a whole number, 0 or more)`);
  return Number(value);
}

export async function answerSessionEvents(call: AccountCall): Promise<Reply> {
  const after = lastEventIdOf(call);
  const { meta, db } = await ownedSession(call);
  const { sessionId } = meta;
  const deadline = call.deadline ?? Date.now() + FALLBACK_FOLLOW_MS;
  const follow = followSession(
    after,
    {
      readEvents: (afterId, max) => readSessionEvents(meta, afterId, max, db),
      readMeta: () => getSessionMeta(meta, Date.now(), db),
      sleep: (ms, signal) => sleep(ms, undefined, { signal }).catch(() => undefined),
      now: Date.now,
      pollMs: FOLLOW_POLL_MS,
      stopAt: deadline - FOLLOW_END_MARGIN_MS,
    },
    call.signal,
  );
  return sse(followFrames(follow, sessionId, after), { 'X-Session-ID': sessionId });
}

async function* followFrames(
  follow: AsyncGenerator<SequencedEvent, FollowEnd>,
  sessionId: string,
  after: number,
): AsyncGenerator<SseFrame> {
  let lastId = after;
  for (;;) {
    const next = await follow.next();
    if (next.done) {
      if (next.value === 'reconnect') yield { retry: HANDOFF_RETRY_MS, data: handoffEvent(sessionId, lastId) };
      return;
    }
    lastId = next.value.id;
    yield { id: String(next.value.id), data: next.value.event };
  }
}

export async function answerSessionGet(call: AccountCall): Promise<Reply> {
  const { meta, db } = await ownedSession(call);
  const record = await getArenaSession(meta.accountId, meta.startedAt, meta.sessionId, db);
  return envelope(sessionView(meta, record));
}

export async function answerSessionCancel(call: AccountCall): Promise<Reply> {
  const { meta } = await ownedSession(call);
  // The cancellation is a write: the function role's (arenaSessions:write), on the session read above.
  const cancelled = meta.status === 'running' && (await cancelSession(meta));
  return envelope({ id: meta.sessionId, cancelled, status: cancelled ? 'cancelling' : meta.status }, 202);
}

export async function answerSessionsList(call: AccountCall): Promise<Reply> {
  const { limit: rawLimit, cursor } = call.req.query;
  const limit = rawLimit === undefined ? DEFAULT_LIST : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST)
    throw invalidArenaRequest('limit', `limit: must be a whole number from 1 to ${MAX_LIST}`);
  const after = cursor === undefined ? undefined : cursorSk(cursor);
  const { accountId } = accountOf(call);
  const page = await listArenaSessions(accountId, limit, after, (await tenantClients(accountId)).dynamo);
  return envelope({
    sessions: page.sessions.map((record) => summaryOf(record)),
    ...(page.after ? { nextCursor: Buffer.from(page.after).toString('base64url') } : {}),
  });
}

function cursorSk(cursor: string): string {
  const sk = /^[A-Za-z0-9_-]{1,400}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  if (!/^ARENA#[0-9T:.Z-]{20,30}#arena-[0-9a-f-]{36}$/.test(sk))
    throw invalidArenaRequest('cursor', 'cursor: must be a nextCursor this route answered');
  return sk;
}

const summaryOf = (record: ArenaSessionRecord) => ({
  id: record.sessionId,
  mode: record.mode,
  ...(record.fightStyle ? { fightStyle: record.fightStyle } : {}),
  multiInstance: record.multiInstance,
  agents: record.agents,
  rounds: record.rounds,
  status: record.status,
  winner: record.winner,
  startedAt: record.startedAt,
  ...(record.endedAt ? { endedAt: record.endedAt } : {}),
});

/**
 * The state: the plan's shape (mode, style, agents and their models, rounds), each played
 * round's answers (who, with which model, how long), failures, votes and result, the
 * leaderboard, the status, and the last event's id once the session is over. No answer text:
 * that is in the events.
 */
function sessionView(meta: SessionMeta, record: ArenaSessionRecord | undefined) {
  const rounds = (record?.roundResults ?? []).map((round) => ({
    ...round,
    votes: (record?.ballots ?? [])
      .filter((ballot) => ballot.round === round.round)
      .map(({ voter, choice, reason }) => ({ voter, votedFor: choice, ...(reason ? { reason } : {}) })),
  }));
  return {
    id: meta.sessionId,
    status: meta.status,
    mode: meta.mode,
    ...(record?.fightStyle ? { fightStyle: record.fightStyle } : {}),
    multiInstance: record?.multiInstance ?? false,
    agents: record?.agents ?? [],
    plannedRounds: record?.rounds ?? 0,
    rounds,
    leaderboard: record?.finalLeaderboard ?? [],
    winner: record?.winner ?? null,
    startedAt: meta.startedAt,
    ...(record?.endedAt ? { endedAt: record.endedAt } : {}),
    ...(meta.lastId !== undefined ? { lastEventId: meta.lastId } : {}),
    ...(meta.cancelled ? { cancelled: true } : {}),
  };
}
