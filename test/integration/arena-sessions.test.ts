import { arenaStream, eventsOf } from './support/arena.js';
import { sessionLedger, sessionRecord } from './support/arena-records.js';
import { bearer, call } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';
import { simulatedReply } from './support/simulators.js';
import { RawHttpConnection, sseFrames } from '../support/raw-http.js';
import { validateArenaStream } from '../support/arena-stream-validator.js';

/**
 * Battle, fight (brawl, blitz, multi-instance) and the legacy route against `npm start`'s
 * runtime, read as a browser reads them (fetch + eventsource-parser), every stream checked by
 * the stream validator; then what the session left behind: the ledger and the session record.
 */
const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'WARN' },
  account: 'arena',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
});

describe('fight', () => {
  it.each([
    ['brawl', ['gpt', 'claude', 'gemini'], 2],
    ['blitz', ['grok', 'deepseek', 'claude', 'gpt'], 3],
  ])('%s: a valid stream whose agents answer differently', async (fightStyle, models, rounds) => {
    const stream = await arenaStream(local.gateway, '/api/v1/fight', local.key, {
      message: 'Which is larger, 9.11 or 9.9?',
      models,
      rounds,
      fightStyle,
    });
    expect(stream.status).toBe(200);
    expect(validateArenaStream(stream.events, 'fight')).toEqual([]);
    expect(eventsOf(stream, 'session_start')[0]).toMatchObject({ mode: 'fight', fightStyle, agents: models, rounds });
    const answers = eventsOf(stream, 'agent_complete').map((e) => e['message'] as string);
    expect(answers).toHaveLength(models.length * rounds);
    expect(new Set(answers).size).toBe(answers.length);
    expect(stream.headers.get('x-session-id')).toBe(eventsOf(stream, 'session_start')[0]!['sessionId']);
  });

  it('omitting models fights with all eight fight-capable families', async () => {
    const stream = await arenaStream(local.gateway, '/api/v1/fight', local.key, {
      message: 'Name a prime.',
      fightStyle: 'blitz',
    });
    expect(validateArenaStream(stream.events, 'fight')).toEqual([]);
    expect(eventsOf(stream, 'session_start')[0]!['agents']).toHaveLength(8);
    expect(eventsOf(stream, 'vote_update')).toHaveLength(8);
  });

  it('multi-instance: four instances of one model, answering differently', async () => {
    const stream = await arenaStream(local.gateway, '/api/v1/fight', local.key, {
      message: 'Say hi.',
      agentMode: 'multiple-claude',
      rounds: 2,
    });
    expect(validateArenaStream(stream.events, 'fight')).toEqual([]);
    expect(eventsOf(stream, 'session_start')[0]!['agents']).toEqual(['claude-1', 'claude-2', 'claude-3', 'claude-4']);
    const first = eventsOf(stream, 'agent_complete').filter((e) => e['round'] === 1);
    expect(new Set(first.map((e) => e['message'])).size).toBe(4);
  });

  it('refuses stream:false with 400 STREAMING_REQUIRED', async () => {
    const answer = await call(local.gateway.url('/api/v1/fight'), {
      headers: bearer(local.key),
      body: { message: 'hi', stream: false },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      success: false,
      error: { code: 'STREAMING_REQUIRED', message: expect.stringMatching(/^stream:/), field: 'stream' },
    });
  });

  it('leaves one ledger entry per answer and per vote, and a session record with every ballot', async () => {
    const stream = await arenaStream(local.gateway, '/api/v1/fight', local.key, {
      message: 'Pick a colour.',
      models: 'gpt,claude,gemini',
      rounds: 2,
    });
    expect(validateArenaStream(stream.events, 'fight')).toEqual([]);
    const sessionId = String(eventsOf(stream, 'session_start')[0]!['sessionId']);
    const entries = await sessionLedger(local.gateway, local.account.accountId, sessionId, 12);
    expect(entries).toHaveLength(12);
    for (const entry of entries) expect(entry).toMatchObject({ route: 'fight', sessionId, status: 200 });
    const turns = entries.map((e) => `${e['round']}/${e['agent']}/${e['purpose']}`).sort();
    expect(turns).toEqual(
      [1, 2]
        .flatMap((round) =>
          ['claude', 'gemini', 'gpt'].flatMap((agent) => [`${round}/${agent}/answer`, `${round}/${agent}/vote`]),
        )
        .sort(),
    );

    const record = await sessionRecord(local.gateway, local.account.accountId, sessionId);
    expect(record).toMatchObject({ mode: 'fight', fightStyle: 'brawl', status: 'complete', route: 'fight' });
    expect(record!['ballots']).toHaveLength(6);
    const votes = eventsOf(stream, 'vote_update');
    for (const ballot of record!['ballots'] as {
      round: number;
      voter: string;
      order: string[];
      choice: string | null;
    }[]) {
      expect(ballot.order).not.toContain(ballot.voter);
      expect(ballot.order).toHaveLength(2);
      expect(votes.find((v) => v['round'] === ballot.round && v['voter'] === ballot.voter)!['votedFor']).toBe(
        ballot.choice,
      );
    }
    expect(JSON.stringify(record)).not.toContain('Simulated reply');
  });
});

describe('synthesis', () => {
  it('synthesize: true — the winner’s model writes one answer after the last round, from the final answers, metered', async () => {
    const stream = await arenaStream(local.gateway, '/api/v1/fight', local.key, {
      message: 'Name a large ocean.',
      models: ['gpt', 'claude', 'gemini'],
      rounds: 2,
      synthesize: true,
    });
    expect(validateArenaStream(stream.events, 'fight')).toEqual([]);
    const types = stream.events.map((e) => e.event.type);
    expect(types.slice(-3, -1)).toEqual(['synthesis_delta', 'synthesis_complete']);
    const complete = eventsOf(stream, 'synthesis_complete')[0]!;
    const winner = eventsOf(stream, 'session_complete')[0]!['winner'] as string;
    const winnerModel = eventsOf(stream, 'agent_complete').find((e) => e['agent'] === winner)!['model'];
    expect(eventsOf(stream, 'synthesis_start')[0]).toEqual({ type: 'synthesis_start', model: winnerModel });
    expect(complete).toMatchObject({ model: winnerModel, citations: [] });
    expect(typeof complete['message']).toBe('string');

    const sessionId = stream.headers.get('x-session-id')!;
    const entries = await sessionLedger(local.gateway, local.account.accountId, sessionId, 13);
    expect(entries.filter((e) => e['purpose'] === 'synthesis')).toEqual([
      expect.objectContaining({ agent: 'synthesis', round: 2, route: 'fight', model: winnerModel }),
    ]);
  });

  it('synthesize: "<alias>" names the writer; a battle or an unknown alias is refused naming synthesize', async () => {
    const stream = await arenaStream(local.gateway, '/api/v1/fight', local.key, {
      message: 'Name a planet.',
      models: ['gpt', 'claude'],
      synthesize: 'grok',
    });
    expect(eventsOf(stream, 'synthesis_complete')[0]).toMatchObject({ model: expect.stringContaining('grok') });
    for (const [path, synthesize] of [
      ['/api/v1/battle', true],
      ['/api/v1/fight', 'not-a-model'],
      ['/api/v1/fight', 7],
    ] as const) {
      const refused = await call(local.gateway.url(path), {
        headers: bearer(local.key),
        body: { message: 'Hi', models: ['gpt', 'claude'], synthesize },
      });
      expect([path, refused.status, refused.body.error.field]).toEqual([path, 400, 'synthesize']);
    }
  });
});

describe('battle', () => {
  it('streams both answers with the same vocabulary and no vote', async () => {
    const stream = await arenaStream(local.gateway, '/api/v1/battle', local.key, {
      message: 'Tell me a fact.',
      models: ['gpt', 'llama'],
    });
    expect(validateArenaStream(stream.events, 'battle')).toEqual([]);
    expect(
      eventsOf(stream, 'agent_complete')
        .map((e) => e['agent'])
        .sort(),
    ).toEqual(['gpt', 'llama']);
  });

  it('answers docs/interface.md §2.10 when stream is false', async () => {
    const answer = await call(local.gateway.url('/api/v1/battle'), {
      headers: bearer(local.key),
      body: { message: 'Tell me a fact.', models: 'claude, gemini', stream: false },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      id: answer.headers.get('x-session-id'),
      mode: 'battle',
      created_at: expect.any(Number),
      responses: [
        { agent: 'claude', model: 'claude-sonnet-4-5', message: expect.stringContaining('Tell me a fact.') },
        { agent: 'gemini', model: 'gemini-2.5-pro', message: expect.stringContaining('Tell me a fact.') },
      ],
    });
  });

  it('frames every event with an increasing id, whole, on the wire', async () => {
    const connection = await RawHttpConnection.open(local.gateway.info.baseUrl);
    try {
      const body = JSON.stringify({ message: 'Count to three. [sim:words=40]', models: ['gpt', 'claude'] });
      const response = await connection.request(
        'POST',
        '/api/v1/battle',
        { ...bearer(local.key), 'Content-Type': 'application/json' },
        body,
      );
      expect(response.status).toBe(200);
      const text = response.body.toString('utf8');
      const frames = text
        .slice(0, -2)
        .split('\n\n')
        .filter((frame) => !frame.startsWith(':'));
      const ids = frames.map((frame) => Number(/^id: (\d+)\n/.exec(frame)?.[1]));
      expect(ids).toEqual(ids.map((_, i) => i + 1));
      expect(
        sseFrames(text)
          .data.map((data) => JSON.parse(data).type)
          .at(-1),
      ).toBe('session_complete');
    } finally {
      connection.close();
    }
  });
});

describe('the legacy route', () => {
  it('mode chat answers as chat completions', async () => {
    const answer = await call(local.gateway.url('/api/chat'), {
      headers: bearer(local.key),
      body: { mode: 'chat', model: 'gpt', message: 'hello legacy', stream: false },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-model-used')).toBe('gpt-5');
    expect(answer.body).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { content: expect.stringMatching(simulatedReply('gpt-5', 'hello legacy')) } }],
    });
  });

  it('mode battle and mode fight behave as the v1 routes', async () => {
    const battle = await call(local.gateway.url('/api/chat'), {
      headers: bearer(local.key),
      body: { mode: 'battle', models: ['gpt', 'claude'], message: 'hi', stream: false },
    });
    expect(battle.body).toMatchObject({ mode: 'battle', responses: [{ agent: 'gpt' }, { agent: 'claude' }] });
    const fight = await arenaStream(local.gateway, '/api/chat', local.key, {
      mode: 'fight',
      models: ['gpt', 'claude'],
      message: 'hi',
    });
    expect(validateArenaStream(fight.events, 'fight')).toEqual([]);
  });

  it('requires mode', async () => {
    const answer = await call(local.gateway.url('/api/chat'), { headers: bearer(local.key), body: { message: 'hi' } });
    expect(answer.status).toBe(400);
    expect(answer.body.error.field).toBe('mode');
  });

  it('says it is deprecated, and announces no sunset the deployment has not set', async () => {
    const answer = await call(local.gateway.url('/api/chat'), { headers: bearer(local.key), body: { message: 'hi' } });
    expect(answer.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(answer.headers.get('link')).toContain('<v1/chat/completions>; rel="successor-version"');
    expect(answer.headers.get('sunset')).toBeNull();
  });
});
