import { arenaStream, eventsOf, sessionEvents, type ArenaStream } from './support/arena.js';
import { arenaCalls } from './support/arena-calls.js';
import { sessionLedger } from './support/arena-records.js';
import { bearer, call } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';
import { createKey, provisionAccount } from './support/provisioning.js';
import { validateArenaStream, type StreamEvent } from '../support/arena-stream-validator.js';

/**
 * A session read in pieces: the caller hangs up at points chosen by a seeded generator (one of
 * them just after a vote), reconnects to the events route with the last id it got, and so on
 * until the session ends. Whatever the cuts, the pieces put together are every event exactly
 * once, in order, and a sound fight; the session plays on while nobody reads (its upstream
 * calls are not aborted, and each turn is asked once); a reader joining after the end gets the
 * same whole session; another account finds nothing.
 */
const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'WARN' },
  account: 'reconnect',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
});

const PACED = '[sim:first_token_ms=40] [sim:token_ms=4] [sim:words=30]';
const FIGHT = { message: `Name a prime number. ${PACED}`, models: ['gpt', 'claude', 'gemini'], rounds: 2 };

/** A small deterministic generator, so a failure replays with the same cuts. */
function cuts(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Reads the session until it ends, leaving after `leaveAfter()` events each time (the first read is the POST). */
async function readInPieces(
  start: (options: { onEvent: (e: StreamEvent) => boolean }) => Promise<ArenaStream>,
  sessionOf: (s: ArenaStream) => string,
  leaveAt: (piece: number, event: StreamEvent, index: number) => boolean,
) {
  const pieces: ArenaStream[] = [];
  let index = 0;
  let piece = 0;
  const onEvent = (event: StreamEvent) => leaveAt(piece, event, index++);
  pieces.push(await start({ onEvent }));
  const sessionId = sessionOf(pieces[0]!);
  while (pieces.at(-1)!.events.at(-1)?.event.type !== 'session_complete') {
    piece++;
    if (piece > 40) throw new Error('the session did not end within 40 reconnects');
    const lastId = pieces.flatMap((p) => p.events).at(-1)?.id ?? 0;
    pieces.push(await sessionEvents(local.gateway, sessionId, local.key, lastId, { onEvent }));
    expect(pieces.at(-1)!.status).toBe(200);
  }
  return { sessionId, pieces, events: pieces.flatMap((p) => p.events) };
}

it('a caller that leaves and comes back, again and again, gets every event exactly once', async () => {
  const random = cuts(7);
  let cutAfterVote = true;
  const { sessionId, pieces, events } = await readInPieces(
    ({ onEvent }) => arenaStream(local.gateway, '/api/v1/fight', local.key, FIGHT, { onEvent }),
    (stream) => stream.headers.get('x-session-id')!,
    (_piece, { event }) => {
      if (event.type === 'vote_update' && cutAfterVote) {
        cutAfterVote = false;
        return true;
      }
      return random() < 0.08;
    },
  );
  expect(pieces.length).toBeGreaterThanOrEqual(4);
  expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
  expect(validateArenaStream(events, 'fight')).toEqual([]);
  expect(eventsOf({ events } as ArenaStream, 'agent_complete')).toHaveLength(6);

  // Each answer and each vote was asked once, the hang-ups notwithstanding, and none was cut.
  const calls = await arenaCalls(local.gateway);
  expect(calls.filter((c) => !c.vote)).toHaveLength(6);
  expect(calls.filter((c) => c.vote)).toHaveLength(6);
  expect(calls.filter((c) => c.closedBeforeEnd)).toEqual([]);
  const entries = await sessionLedger(local.gateway, local.account.accountId, sessionId, 12);
  expect(entries.filter((e) => e['outcome'] !== 'ok')).toEqual([]);

  // After the end, a reader from the start gets the same session, byte for byte in its events.
  const replay = await sessionEvents(local.gateway, sessionId, local.key);
  expect(replay.events).toEqual(events);
  // From the middle: the rest.
  const middle = Math.floor(events.length / 2);
  expect((await sessionEvents(local.gateway, sessionId, local.key, middle)).events).toEqual(events.slice(middle));
  // From the end: nothing, and the stream ends.
  expect((await sessionEvents(local.gateway, sessionId, local.key, events.length)).events).toEqual([]);
});

it('the state, the list, and nothing for another account', async () => {
  const stream = await arenaStream(local.gateway, '/api/v1/battle', local.key, {
    message: 'Say hello.',
    models: ['gpt', 'claude'],
  });
  const sessionId = stream.headers.get('x-session-id')!;
  const state = await call(local.gateway.url(`/api/v1/sessions/${sessionId}`), { headers: bearer(local.key) });
  expect(state.status).toBe(200);
  expect(state.body.data).toMatchObject({
    id: sessionId,
    status: 'complete',
    mode: 'battle',
    lastEventId: stream.events.at(-1)!.id,
    agents: [
      { agent: 'gpt', model: expect.any(String) },
      { agent: 'claude', model: expect.any(String) },
    ],
  });
  const listed = await call(local.gateway.url('/api/v1/sessions?limit=1'), { headers: bearer(local.key) });
  expect(listed.status).toBe(200);
  expect(listed.body.data.sessions).toEqual([expect.objectContaining({ id: sessionId, status: 'complete' })]);
  const next = await call(local.gateway.url(`/api/v1/sessions?limit=100&cursor=${listed.body.data.nextCursor}`), {
    headers: bearer(local.key),
  });
  expect(next.body.data.sessions.map((s: { id: string }) => s.id)).not.toContain(sessionId);

  const other = await provisionAccount(local.gateway, 'reconnect-other');
  const otherKey = (await createKey(local.gateway, other)).key;
  for (const path of [`/api/v1/sessions/${sessionId}`, `/api/v1/sessions/${sessionId}/events`])
    expect((await call(local.gateway.url(path), { headers: bearer(otherKey) })).status).toBe(404);
  const cancel = await call(local.gateway.url(`/api/v1/sessions/${sessionId}/cancel`), {
    method: 'POST',
    headers: bearer(otherKey),
  });
  expect(cancel.status).toBe(404);
  expect((await call(local.gateway.url('/api/v1/sessions'), { headers: bearer(otherKey) })).body.data.sessions).toEqual(
    [],
  );
});

it('refuses a Last-Event-ID that is not an event id, and a cursor it did not give', async () => {
  const stream = await arenaStream(local.gateway, '/api/v1/battle', local.key, {
    message: 'Hi.',
    models: ['gpt', 'claude'],
  });
  const sessionId = stream.headers.get('x-session-id')!;
  const bad = await call(local.gateway.url(`/api/v1/sessions/${sessionId}/events`), {
    headers: { ...bearer(local.key), 'Last-Event-ID': '-1' },
  });
  expect(bad.status).toBe(400);
  expect(bad.text).toContain('Last-Event-ID');
  const cursor = await call(local.gateway.url('/api/v1/sessions?cursor=bogus'), { headers: bearer(local.key) });
  expect(cursor.status).toBe(400);
  expect(cursor.text).toContain('cursor');
  const unknown = await call(local.gateway.url('/api/v1/sessions/arena-00000000-0000-0000-0000-000000000000'), {
    headers: bearer(local.key),
  });
  expect(unknown.status).toBe(404);
});
