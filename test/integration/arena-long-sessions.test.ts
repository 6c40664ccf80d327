import { arenaStream, eventsOf, sessionEvents, type ArenaStream } from './support/arena.js';
import { arenaCalls, resetSimulators, type ArenaCall } from './support/arena-calls.js';
import { sessionLedger, sessionRecord, until } from './support/arena-records.js';
import { SimulatorControl } from './support/simulators.js';
import { useGateway } from './support/gateway-fixture.js';
import { validateArenaStream, type StreamEvent } from '../support/arena-stream-validator.js';

/**
 * Sessions longer than one host (issue 22 §2), with the limits shortened: each host hands the
 * session on after a second (GATEWAY_SESSION_HANDOFF_SECONDS), leases last two seconds, and the
 * local Step Functions' waits take 200 ms. The live stream ends with a hand-off frame and a
 * `retry:` hint; the session runner plays on from the log, host after host, and the caller
 * reads the rest on the events route. A crash mid-session (the runtime killed outright) is taken
 * over from the log once the lease lapses, and no finished turn is asked again: the simulators'
 * captured requests, read before the crash and after the restart, prove it.
 */
const local = useGateway({
  env: {
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    GATEWAY_SESSION_HANDOFF_SECONDS: '1',
    GATEWAY_SESSION_LEASE_SECONDS: '2',
    GATEWAY_JOB_WAIT_MS: '200',
  },
  account: 'long-sessions',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
});

const PACED = '[sim:first_token_ms=100] [sim:token_ms=10] [sim:words=20]';

/** The rest of a session after `stream`, on the events route, until it ends. */
async function rest(sessionId: string, after: StreamEvent[]): Promise<StreamEvent[]> {
  const events = [...after];
  for (let reads = 0; events.at(-1)?.event.type !== 'session_complete'; reads++) {
    if (reads > 5) throw new Error('the session did not end');
    const read = await sessionEvents(local.gateway, sessionId, local.key, events.at(-1)?.id ?? 0);
    expect(read.status).toBe(200);
    events.push(...read.events);
  }
  return events;
}

const answersBy = (calls: readonly ArenaCall[], model: string) => calls.filter((c) => !c.vote && c.model === model);

it('a fight longer than its stream: the stream hands it on, the runner finishes it, every turn asked once', async () => {
  const stream = await arenaStream(local.gateway, '/api/v1/fight', local.key, {
    message: `Name a prime number. ${PACED}`,
    models: ['gpt', 'claude', 'gemini'],
    rounds: 3,
  });
  expect(stream.status).toBe(200);
  const sessionId = stream.headers.get('x-session-id')!;
  expect(stream.events.at(-1)!.event.type).not.toBe('session_complete');
  expect(stream.handoff).toEqual({
    type: 'stream_handoff',
    sessionId,
    lastEventId: stream.events.at(-1)!.id,
    events: `/api/v1/sessions/${sessionId}/events`,
  });
  expect(stream.retry).toBe(1000);

  const events = await rest(sessionId, stream.events);
  expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
  expect(validateArenaStream(events, 'fight')).toEqual([]);
  expect(eventsOf({ events } as ArenaStream, 'agent_complete')).toHaveLength(9);

  const calls = await arenaCalls(local.gateway);
  expect(calls.filter((c) => !c.vote)).toHaveLength(9);
  expect(calls.filter((c) => c.vote)).toHaveLength(9);
  expect(calls.filter((c) => c.closedBeforeEnd)).toEqual([]);
  expect(await sessionLedger(local.gateway, local.account.accountId, sessionId, 18)).toHaveLength(18);
  expect(await sessionRecord(local.gateway, local.account.accountId, sessionId)).toMatchObject({ status: 'complete' });
});

it('a crash mid-session: the runner takes over from the log and asks no finished turn again', async () => {
  // gemini's first answer waits a minute: the crash finds the session in its turn, after gpt's and claude's.
  await resetSimulators(local.gateway);
  await SimulatorControl.of(local.gateway, 'google').fault('delay_first_token:60000', 1, 'gemini-2.5-pro');
  const stream = await arenaStream(
    local.gateway,
    '/api/v1/fight',
    local.key,
    { message: `Name an even number. ${PACED}`, models: ['gpt', 'claude', 'gemini'], rounds: 2 },
    { onEvent: ({ event }) => event.type === 'agent_start' && event['agent'] === 'gemini' },
  );
  const sessionId = stream.headers.get('x-session-id')!;
  const beforeCrash = await until(
    () => arenaCalls(local.gateway),
    (calls) => answersBy(calls, 'gemini-2.5-pro').length === 1,
  );
  expect(beforeCrash.map((c) => [c.model, c.vote]).sort()).toEqual([
    ['claude-sonnet-4-5', false],
    ['gemini-2.5-pro', false],
    ['gpt-5', false],
  ]);

  await local.gateway.crash();
  await local.gateway.restart();

  const events = await rest(sessionId, stream.events);
  expect(validateArenaStream(events, 'fight')).toEqual([]);
  expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
  const interrupted = events.filter((e) => e.event.type === 'error' && e.event['code'] === 'turn_interrupted');
  expect(interrupted.map((e) => [e.event['agent'], e.event['round']])).toEqual([['gemini', 1]]);

  // After the restart: gemini's round-1 answer again, the votes, and round 2. Never gpt's or claude's round 1.
  const afterRestart = await arenaCalls(local.gateway);
  expect(answersBy(afterRestart, 'gpt-5')).toHaveLength(1);
  expect(answersBy(afterRestart, 'claude-sonnet-4-5')).toHaveLength(1);
  expect(answersBy(afterRestart, 'gemini-2.5-pro')).toHaveLength(2);
  expect(afterRestart.filter((c) => c.vote)).toHaveLength(6);
  expect(await sessionRecord(local.gateway, local.account.accountId, sessionId)).toMatchObject({ status: 'complete' });
});
