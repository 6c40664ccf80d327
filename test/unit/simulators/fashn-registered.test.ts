import { SIMULATOR_API_KEY, startSimulators } from '../../../local/simulators/simulator-registry.js';

/** `npm start` and LocalGateway run the FASHN fake unless a real key is configured. */
test('the FASHN fake is started and the gateway pointed at its /v1 with the simulator key', async () => {
  const simulated = await startSimulators({});
  try {
    expect(simulated.urls.fashn).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(simulated.environment['FASHN_BASE_URL']).toBe(`${simulated.urls.fashn}/v1`);
    expect(simulated.environment['FASHN_API_KEY']).toBe(SIMULATOR_API_KEY);
    const run = await fetch(`${simulated.environment['FASHN_BASE_URL']}/run`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SIMULATOR_API_KEY}` },
      body: JSON.stringify({ model_name: 'model-create', inputs: { prompt: 'a model' } }),
    });
    expect(run.status).toBe(200);
  } finally {
    await simulated.close();
  }
});

test('a configured FASHN key means no fake', async () => {
  const simulated = await startSimulators({ FASHN_API_KEY: 'real-key' });
  try {
    expect(simulated.urls.fashn).toBeUndefined();
    expect(simulated.environment['FASHN_BASE_URL']).toBeUndefined();
  } finally {
    await simulated.close();
  }
});
