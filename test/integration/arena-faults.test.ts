import { arenaStream, eventsOf, sessionEvents, type ArenaStream } from './support/arena.js';
import { bearer, call } from './support/http.js';
import { arenaCalls, resetSimulators } from './support/arena-calls.js';
import { sessionLedger, sessionRecord, until } from './support/arena-records.js';
import { SimulatorControl } from './support/simulators.js';
import { useGateway } from './support/gateway-fixture.js';
import { randomIndex, seededRandom } from '../../lambdas/arena/seeded-random.js';
import { validateArenaStream } from '../support/arena-stream-validator.js';

/**
 * A fight under faults (issue 9, Acceptance "Faults"): an agent whose upstream breaks mid-round,
 * voters that answer garbage, a client that leaves mid-fight (the session plays on), and a
 * session its owner cancels. Each fault is injected into
 * the simulators for one upstream model id only.
 */
const local = useGateway({
  // A short lease: a cancellation is seen at the host's next renewal, a third of it.
  env: { POWERTOOLS_LOG_LEVEL: 'ERROR', GATEWAY_SESSION_LEASE_SECONDS: '3' },
  account: 'arena-faults',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
});

beforeEach(() => resetSimulators(local.gateway));

const sessionIdOf = (stream: ArenaStream) => String(eventsOf(stream, 'session_start')[0]!['sessionId']);

async function fight(body: Record<string, unknown>): Promise<ArenaStream> {
  const stream = await arenaStream(local.gateway, '/api/v1/fight', local.key, body);
  expect(stream.status).toBe(200);
  expect(validateArenaStream(stream.events, 'fight')).toEqual([]);
  return stream;
}

it('an agent whose upstream fails mid-round is an error event naming it; it sits the round out and the session completes', async () => {
  // Both of gpt's routes break after two stream events, more often than the router retries.
  await SimulatorControl.of(local.gateway, 'openai').fault('reset_after_chunks:2', 5, 'gpt-5');
  await SimulatorControl.of(local.gateway, 'openrouter').fault('reset_after_chunks:2', 5, 'openai/gpt-5');
  const stream = await fight({
    message: 'Name a prime number.',
    models: ['gpt', 'claude', 'gemini'],
    fightStyle: 'blitz',
  });

  expect(eventsOf(stream, 'error')).toEqual([
    { type: 'error', agent: 'gpt', round: 1, code: expect.any(String), error: expect.any(String) },
  ]);
  expect(eventsOf(stream, 'agent_complete').map((e) => e['agent'])).not.toContain('gpt');
  expect(
    eventsOf(stream, 'vote_update')
      .map((e) => e['voter'])
      .sort(),
  ).toEqual(['claude', 'gemini']);
  expect(eventsOf(stream, 'session_complete')).toHaveLength(1);

  const sessionId = sessionIdOf(stream);
  const entries = await sessionLedger(local.gateway, local.account.accountId, sessionId, 5);
  const failed = entries.filter((e) => e['agent'] === 'gpt');
  expect(failed.length).toBeGreaterThanOrEqual(1);
  for (const entry of failed) expect(entry).toMatchObject({ route: 'fight', sessionId, round: 1, purpose: 'answer' });
  expect(failed.map((e) => e['outcome'])).not.toContain('ok');
  const record = await sessionRecord(local.gateway, local.account.accountId, sessionId);
  const code = eventsOf(stream, 'error')[0]!['code'];
  expect(record).toMatchObject({ status: 'complete', roundResults: [{ round: 1, failed: [{ agent: 'gpt', code }] }] });
});

it('a voter that answers garbage abstains: vote_update with votedFor null and a reason', async () => {
  const stream = await fight({
    message: 'Name a prime number. [sim:bad_vote=gpt-5]',
    models: ['gpt', 'claude', 'gemini'],
  });
  const votes = eventsOf(stream, 'vote_update');
  expect(votes.find((v) => v['voter'] === 'gpt')).toEqual({
    type: 'vote_update',
    round: 1,
    voter: 'gpt',
    votedFor: null,
    reason: expect.any(String),
  });
  for (const vote of votes.filter((v) => v['voter'] !== 'gpt')) expect(vote['votedFor']).toEqual(expect.any(String));

  const record = await sessionRecord(local.gateway, local.account.accountId, sessionIdOf(stream));
  const ballot = (record!['ballots'] as Record<string, unknown>[]).find((b) => b['voter'] === 'gpt');
  expect(ballot).toMatchObject({ choice: null, reason: votes.find((v) => v['voter'] === 'gpt')!['reason'] });
});

it('when every voter abstains, each round is a tie settled by the documented seeded draw', async () => {
  const agents = ['gpt', 'claude', 'gemini'];
  const stream = await fight({ message: 'Name a prime number. [sim:bad_vote]', models: agents, rounds: 2 });
  expect(eventsOf(stream, 'vote_update').map((v) => v['votedFor'])).toEqual(Array(6).fill(null));
  for (const results of eventsOf(stream, 'voting_complete').map((e) => e['results']))
    expect(results).toEqual(agents.map((agent) => ({ agent, votes: 0 })));

  // tally.ts: tied on votes and on earlier score, a draw from `<sessionSeed>:tie:<round>` over the tied agents in session order.
  const { seed } = (await sessionRecord(local.gateway, local.account.accountId, sessionIdOf(stream)))!;
  const draw = (salt: string, among: readonly string[]) =>
    among[randomIndex(among.length, seededRandom(`${seed}:${salt}`))];
  const winners = eventsOf(stream, 'round_complete').map((e) => e['winner']);
  expect(winners).toEqual([draw('tie:1', agents), draw('tie:2', agents)]);
  // Session winner: all scores 0, so the most rounds won, then a draw from `<sessionSeed>:final`.
  const expected =
    winners[0] === winners[1]
      ? winners[0]
      : draw(
          'final',
          agents.filter((agent) => winners.includes(agent)),
        );
  expect(eventsOf(stream, 'session_complete')[0]!['winner']).toBe(expected);
});

/** A blitz whose claude and gemini wait 5 s for their first token; the caller leaves at gpt's first delta. */
async function leftMidFight(): Promise<string> {
  await SimulatorControl.of(local.gateway, 'anthropic').fault('delay_first_token:5000', 1, 'claude-sonnet-4-5');
  await SimulatorControl.of(local.gateway, 'google').fault('delay_first_token:5000', 1, 'gemini-2.5-pro');
  const stream = await arenaStream(
    local.gateway,
    '/api/v1/fight',
    local.key,
    { message: 'Name a prime number.', models: ['gpt', 'claude', 'gemini'], fightStyle: 'blitz' },
    { onEvent: ({ event }) => event.type === 'agent_delta' },
  );
  expect(stream.events.at(-1)!.event).toMatchObject({ type: 'agent_delta', agent: 'gpt' });
  expect(validateArenaStream(stream.events, 'fight')).toEqual(CUT_SHORT(stream));
  return sessionIdOf(stream);
}

const slowed = async () =>
  (await arenaCalls(local.gateway)).filter((call) => call.provider === 'anthropic' || call.provider === 'google');

it('a client that leaves mid-fight does not stop it: every call runs to its end, and the caller reads the rest', async () => {
  const sessionId = await leftMidFight();
  const record = await until(
    () => sessionRecord(local.gateway, local.account.accountId, sessionId),
    (found) => found?.['status'] !== 'running',
  );
  expect(record).toMatchObject({ status: 'complete' });
  expect((await slowed()).filter((call) => !call.vote).map((call) => call.closedBeforeEnd)).toEqual([false, false]);
  const whole = await sessionEvents(local.gateway, sessionId, local.key);
  expect(validateArenaStream(whole.events, 'fight')).toEqual([]);
  const entries = await sessionLedger(local.gateway, local.account.accountId, sessionId, 6);
  expect(entries.filter((entry) => entry['outcome'] !== 'ok')).toEqual([]);
});

it('a cancelled session stops: its calls in flight are aborted, what was used is metered, and it ends aborted', async () => {
  const sessionId = await leftMidFight();
  const cancel = await call(local.gateway.url(`/api/v1/sessions/${sessionId}/cancel`), {
    method: 'POST',
    headers: bearer(local.key),
  });
  expect(cancel.status).toBe(202);
  expect(cancel.body.data).toEqual({ id: sessionId, cancelled: true, status: 'cancelling' });
  const closed = await until(slowed, (calls) => calls.length === 2 && calls.every((c) => c.closedBeforeEnd));
  expect(closed.map((c) => [c.model, c.closedBeforeEnd])).toEqual(
    expect.arrayContaining([
      ['claude-sonnet-4-5', true],
      ['gemini-2.5-pro', true],
    ]),
  );
  const entries = await sessionLedger(local.gateway, local.account.accountId, sessionId, 3);
  expect(entries.map((e) => e['agent']).sort()).toEqual(['claude', 'gemini', 'gpt']);
  for (const entry of entries) expect(entry).toMatchObject({ sessionId, route: 'fight', round: 1, purpose: 'answer' });
  for (const agent of ['claude', 'gemini'])
    expect(entries.find((e) => e['agent'] === agent)).toMatchObject({ outcome: 'client_closed' });
  const record = await until(
    () => sessionRecord(local.gateway, local.account.accountId, sessionId),
    (found) => found?.['status'] !== 'running',
  );
  expect(record).toMatchObject({ status: 'aborted' });
  const whole = await sessionEvents(local.gateway, sessionId, local.key);
  expect(whole.events.at(-1)!.event).toMatchObject({ type: 'error', code: 'session_cancelled' });
});

/** What the validator must say of a stream the client cut in round 1's answers, and nothing else. */
const CUT_SHORT = (stream: ArenaStream) => [
  `the last event is ${stream.events.at(-1)!.event.type}, not session_complete`,
  'session_complete must occur once',
  'round 1 never completed',
];
