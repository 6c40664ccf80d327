import { createKey, provisionAccount } from './support/provisioning.js';
import { arenaStream, eventsOf } from './support/arena.js';
import { bearer, call } from './support/http.js';
import { SimulatorControl } from './support/simulators.js';
import { useGateway } from './support/gateway-fixture.js';
import { validateArenaStream } from '../support/arena-stream-validator.js';

/**
 * A deployment without a search provider key: `EXA_API_KEY` set to the empty string runs
 * the local runtime with no Exa simulator and no key, as a deployment whose platform keys
 * secret has no `exa` entry. Search is then a 500 INTERNAL_ERROR (docs/interface.md §7), not a 503.
 */
const local = useGateway({ env: { EXA_API_KEY: '', POWERTOOLS_LOG_LEVEL: 'WARN' } });

it('answers 500 INTERNAL_ERROR when no search provider is configured', async () => {
  expect(local.gateway.info.simulators['exa']).toBeUndefined();
  const account = await provisionAccount(local.gateway, 'no-search');
  const { key } = await createKey(local.gateway, account);
  const answer = await call(local.gateway.url('/api/v1/search'), { headers: bearer(key), body: { query: 'anything' } });
  expect(answer.status).toBe(500);
  expect(answer.body).toMatchObject({ success: false, error: { code: 'INTERNAL_ERROR' } });
  expect(answer.body.error.message).toMatch(/not configured/);
  // Bad input is still the caller's 400, whatever the deployment lacks.
  const bad = await call(local.gateway.url('/api/v1/search'), { headers: bearer(key), body: { query: '' } });
  expect(bad.status).toBe(400);
});

it('offers the arena agents no web_search tool, so they answer without searching', async () => {
  const account = await provisionAccount(local.gateway, 'no-search-arena');
  const { key } = await createKey(local.gateway, account);
  const openai = SimulatorControl.of(local.gateway, 'openai');
  await openai.reset();
  const stream = await arenaStream(local.gateway, '/api/v1/battle', key, {
    message: 'What is the latest news on fusion?',
    models: ['gpt', 'claude'],
  });
  expect(validateArenaStream(stream.events, 'battle')).toEqual([]);
  expect(eventsOf(stream, 'search_start')).toEqual([]);
  expect(eventsOf(stream, 'agent_complete')).toHaveLength(2);
  expect((await openai.requests()).every((request) => request.body.tools === undefined)).toBe(true);
});
