import { arenaStream, eventsOf } from './support/arena.js';
import { sessionLedger, until } from './support/arena-records.js';
import { bearer, call } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';
import { validateArenaStream } from '../support/arena-stream-validator.js';

/**
 * Agents that search the web by themselves: the web_search tool the gateway runs, its events
 * inside each agent's turn, citations equal to what the searches returned, each search in the
 * ledger; and its faults: the provider failing, a model that will not stop searching, a session
 * cancelled during a search.
 */
const local = useGateway({
  // A short lease: a cancellation is seen at the host's next renewal, a third of it.
  env: { POWERTOOLS_LOG_LEVEL: 'WARN', GATEWAY_SESSION_LEASE_SECONDS: '3' },
  account: 'arena-search',
  key: { via: 'admin', body: { type: 'secret', rateLimit: 10000 } },
  simulator: 'exa',
  // Sessions in these tests search faster than Exa's 10 searches a second.
  unthrottled: true,
  resetEach: true,
});

const QUESTION = 'What is the latest news on fusion energy?';

describe('agents that search', () => {
  it('a fight: search events inside each turn, citations equal to the results, every search metered', async () => {
    const stream = await arenaStream(local.gateway, '/api/v1/fight', local.key, {
      message: QUESTION,
      models: ['gpt', 'claude'],
    });
    expect(validateArenaStream(stream.events, 'fight')).toEqual([]);
    for (const agent of ['gpt', 'claude']) {
      const mine = stream.events.map((e) => e.event).filter((e) => e['agent'] === agent);
      expect(mine.map((e) => e.type).filter((type) => type.startsWith('search_'))).toEqual([
        'search_start',
        ...Array<string>(5).fill('search_content'),
        'search_complete',
      ]);
      expect(mine.find((e) => e.type === 'search_start')).toMatchObject({
        query: QUESTION,
        timestamp: expect.any(Number),
      });
      const complete = mine.find((e) => e.type === 'agent_complete')!;
      const citations = complete['citations'] as { url: string }[];
      expect(citations).toHaveLength(5);
      expect(complete['message']).toContain(citations[0]!.url);
    }
    const sessionId = String(eventsOf(stream, 'session_start')[0]!['sessionId']);
    // Per agent: the answer's two steps, one search, one vote.
    const entries = await sessionLedger(local.gateway, local.account.accountId, sessionId, 8);
    const searches = entries.filter((e) => e['purpose'] === 'search');
    expect(searches.map((e) => e['agent']).sort()).toEqual(['claude', 'gpt']);
    for (const entry of searches)
      expect(entry).toMatchObject({
        route: 'fight',
        model: 'exa/auto',
        provider: 'exa',
        unit: 'search',
        status: 200,
        round: 1,
      });
    expect(entries.filter((e) => e['purpose'] === 'answer')).toHaveLength(4);
    expect((await local.simulator.requests()).length).toBe(2);
  });

  it('a battle answered as JSON carries each answer’s citations', async () => {
    const answer = await call(local.gateway.url('/api/v1/battle'), {
      headers: bearer(local.key),
      body: { message: 'Which sources explain tides?', models: ['gemini', 'grok'], stream: false },
    });
    expect(answer.status).toBe(200);
    for (const response of answer.body.responses) expect(response.citations).toHaveLength(5);
  });

  it('the search provider failing is an error naming the agent, which answers anyway', async () => {
    await local.simulator.fault('status:503', 1);
    const stream = await arenaStream(local.gateway, '/api/v1/fight', local.key, {
      message: QUESTION,
      models: ['gpt', 'claude'],
    });
    expect(validateArenaStream(stream.events, 'fight')).toEqual([]);
    const errors = eventsOf(stream, 'error');
    expect(errors).toEqual([expect.objectContaining({ agent: 'gpt', round: 1, code: 'search_upstream_failed' })]);
    expect(eventsOf(stream, 'agent_complete').map((e) => e['agent'])).toEqual(['gpt', 'claude']);
    expect(eventsOf(stream, 'session_complete')).toHaveLength(1);
  });

  it('a model that keeps calling the tool gets three searches, then must answer', async () => {
    const stream = await arenaStream(local.gateway, '/api/v1/battle', local.key, {
      message: 'Hi [sim:search_always]',
      models: ['gpt', 'claude'],
    });
    expect(validateArenaStream(stream.events, 'battle')).toEqual([]);
    for (const agent of ['gpt', 'claude'])
      expect(eventsOf(stream, 'search_start').filter((e) => e['agent'] === agent)).toHaveLength(3);
    expect(eventsOf(stream, 'agent_complete')).toHaveLength(2);
  });

  it('a client leaving during a search leaves it running; a cancel cuts it, and it is metered', async () => {
    await local.simulator.fault('delay_headers:3000', 4);
    const stream = await arenaStream(
      local.gateway,
      '/api/v1/battle',
      local.key,
      { message: QUESTION, models: ['gpt', 'claude'] },
      {
        onEvent: (event) => event.event.type === 'search_start',
      },
    );
    const sessionId = String(eventsOf(stream, 'session_start')[0]!['sessionId']);
    // The session plays on without its caller; its owner stops it.
    const cancel = await call(local.gateway.url(`/api/v1/sessions/${sessionId}/cancel`), {
      method: 'POST',
      headers: bearer(local.key),
    });
    expect(cancel.status).toBe(202);
    // The answers' first steps are metered first; the searches once the cancel has cut them.
    const searches = (
      await until(
        () => sessionLedger(local.gateway, local.account.accountId, sessionId, 2),
        (entries) => entries.some((e) => e['purpose'] === 'search'),
      )
    ).filter((e) => e['purpose'] === 'search');
    expect(searches.length).toBeGreaterThanOrEqual(1);
    expect(searches.every((e) => e['outcome'] === 'client_closed')).toBe(true);
    const captured = await local.simulator.requests();
    expect(captured.length).toBeGreaterThanOrEqual(1);
    expect(captured.every((request) => request.closedBeforeEnd)).toBe(true);
  });
});
