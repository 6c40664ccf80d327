import { startSimulator, type RunningSimulator, type SimulatorDefinition } from '../../../local/simulators/harness.js';

/**
 * The `error:<name>` fault: a provider's named errors, which a status alone cannot tell apart
 * (MiniMax's in-band codes inside HTTP 200, FASHN's three kinds of 429), injected through the
 * same control API as every other fault, and refused when the provider has no such error.
 */
const definition: SimulatorDefinition = {
  name: 'named',
  routes: [
    {
      method: 'POST',
      path: /^\/work$/,
      faultable: true,
      handle: (x) => x.send({ status: 200, body: '{"done":true}' }),
    },
  ],
  modelOf: () => undefined,
  errorFor: (status) => ({ status, body: '{"error":"status"}' }),
  authenticate: () => undefined,
  namedErrors: {
    OutOfCredits: () => ({ status: 429, body: '{"error":"OutOfCredits"}' }),
    '1002': () => ({ status: 200, body: '{"base_resp":{"status_code":1002}}' }),
  },
};

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator(definition);
});
afterAll(() => sim.close());

const inject = (fault: string, times = 1) =>
  fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault, times }) });
const work = async () => {
  const response = await fetch(`${sim.url}/work`, { method: 'POST', body: '{}' });
  return [response.status, await response.text()] as const;
};

test('a named error answers the next requests as the provider would, then the work resumes', async () => {
  expect((await inject('error:OutOfCredits')).status).toBe(201);
  expect((await inject('error:1002')).status).toBe(201);
  // One fault of each type per request: the oldest named error first.
  expect(await work()).toEqual([429, '{"error":"OutOfCredits"}']);
  expect(await work()).toEqual([200, '{"base_resp":{"status_code":1002}}']);
  expect(await work()).toEqual([200, '{"done":true}']);
});

test('a name the provider does not have is refused when injected', async () => {
  const refused = await inject('error:NoSuchError');
  expect(refused.status).toBe(400);
  expect(await refused.json()).toEqual({ error: 'unknown fault "error:NoSuchError"' });
  expect((await inject('error:bad name')).status).toBe(400);
});
