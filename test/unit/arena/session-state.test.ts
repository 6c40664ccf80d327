import { planArena } from '../../../lambdas/arena/arena-request.js';
import { applyEvent, newSession } from '../../../lambdas/arena/session-state.js';

describe('the session state', () => {
  it('counts an agent as failed only when its turn ended without an answer', () => {
    const state = newSession('s', planArena('fight', { message: 'hi', models: ['gpt', 'claude'] }, 'seed'));
    applyEvent(state, { type: 'round_start', round: 1, totalRounds: 1 });
    applyEvent(state, { type: 'error', agent: 'gpt', round: 1, code: 'search_unavailable', error: 'search down' });
    applyEvent(state, { type: 'agent_complete', agent: 'gpt', round: 1, model: 'gpt-5', message: 'answered anyway' });
    applyEvent(state, { type: 'error', agent: 'claude', round: 1, code: 'model_unavailable', error: 'down' });
    expect(state.rounds[0]!.failed).toEqual([{ agent: 'claude', code: 'model_unavailable' }]);
    expect(state.rounds[0]!.answers.map((a) => a.agent)).toEqual(['gpt']);
  });
});
