import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFashnSimulator } from '../../../local/simulators/fashn.js';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';
import { FashionError } from '../../../lambdas/fashion/fashion-errors.js';
import { parseFashionRequest } from '../../../lambdas/fashion/fashion-request.js';
import { predictionStatus, runPrediction } from '../../../lambdas/fashion/fashn-wire.js';
import { send } from '../../../lambdas/providers/http-transport.js';
import type { ProviderEndpoint } from '../../../lambdas/providers/provider-config.js';

/** The FASHN adapter against the FASHN fake on loopback: runs, walks, failures, and every API-level error. */
let sim: RunningSimulator;
let endpoint: ProviderEndpoint;

beforeAll(async () => {
  sim = await startSimulator(createFashnSimulator({ concurrency: 100 }));
  endpoint = { baseUrl: `${sim.url}/v1`, apiKey: 'sim-local-key' };
  // The fake's default 10 runs a second would refuse this file's pace.
  await fetch(`${sim.url}/__sim/limits`, { method: 'POST', body: JSON.stringify({ qps: null }) });
});
afterAll(() => sim.close());
afterEach(() => fetch(`${sim.url}/__sim/faults`, { method: 'DELETE' }));

const deps = () => ({ send, signal: AbortSignal.timeout(5_000) });
const request = (inputs: Record<string, unknown>, model_name = 'model-create') =>
  parseFashionRequest({ model_name, inputs });
const inject = (fault: string) => fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault }) });
const failureOf = async (promise: Promise<unknown>) => {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(FashionError);
  return error as FashionError;
};

test('run sends model_name and inputs with Bearer auth; status walks to completed with outputs and credits', async () => {
  const { predictionId } = await runPrediction(
    endpoint,
    request({ prompt: 'studio [sim:polls=2]', num_images: 2 }),
    deps(),
  );
  const captured = sim.requests.at(-1)!;
  expect(captured.headers['authorization']).toBe('Bearer sim-local-key');
  expect(captured.body).toEqual({
    model_name: 'model-create',
    inputs: { prompt: 'studio [sim:polls=2]', num_images: 2 },
  });
  const walk = [];
  for (let i = 0; i < 3; i++) walk.push(await predictionStatus(endpoint, predictionId, deps()));
  expect(walk.map((s) => s.status)).toEqual(['starting', 'in_queue', 'completed']);
  expect(walk[0]).toEqual({ id: predictionId, status: 'starting', output: null, error: null });
  expect(walk[2]).toEqual({
    id: predictionId,
    status: 'completed',
    output: [expect.stringMatching(/output_0\.png$/), expect.stringMatching(/output_1\.png$/)],
    error: null,
    creditsUsed: 6,
  });
});

test('webhook_url goes in the query string', async () => {
  await runPrediction(endpoint, request({ prompt: 'p' }), { ...deps(), webhookUrl: 'https://hooks.example.com/x?a=1' });
  expect(sim.requests.at(-1)!.query).toEqual({ webhook_url: 'https://hooks.example.com/x?a=1' });
});

test('a failed prediction is a status with its error, 0 credits; 3rdPartyProviderError reads as ThirdPartyError', async () => {
  const bare = 'iVBORw0KGgo'.padEnd(120, 'A');
  const { predictionId } = await runPrediction(endpoint, request({ image: `${bare}` }, 'reframe'), deps());
  for (let i = 0; i < 3; i++) await predictionStatus(endpoint, predictionId, deps());
  const failed = await predictionStatus(endpoint, predictionId, deps());
  expect(failed).toMatchObject({ status: 'failed', output: null, creditsUsed: 0 });
  expect(failed.error?.name).toBe('ImageLoadError');
  const third = await runPrediction(
    endpoint,
    request({ prompt: '[sim:polls=0][sim:fail=3rdPartyProviderError]' }),
    deps(),
  );
  expect((await predictionStatus(endpoint, third.predictionId, deps())).error?.name).toBe('ThirdPartyError');
});

test('canceled and time_out end as failures named after them', async () => {
  const { predictionId } = await runPrediction(
    endpoint,
    request({ prompt: '[sim:polls=0][sim:end=time_out]' }),
    deps(),
  );
  expect(await predictionStatus(endpoint, predictionId, deps())).toMatchObject({
    status: 'failed',
    error: { name: 'TimeOut' },
  });
});

test.each([
  ['error:RateLimitExceeded', 'rate_limited', 429],
  ['error:ConcurrencyLimitExceeded', 'concurrency_limited', 429],
  ['error:OutOfCredits', 'out_of_credits', 429],
  ['error:InternalServerError', 'upstream_failed', 500],
  ['error:BadRequest', 'upstream_rejected', 400],
  ['status:401', 'upstream_auth', 401],
  ['status:503', 'upstream_failed', 503],
])('%s → %s', async (fault, kind, status) => {
  await inject(fault);
  const error = await failureOf(runPrediction(endpoint, request({ prompt: 'p' }), deps()));
  expect(error.kind).toBe(kind);
  expect(error.details.status).toBe(status);
});

test('an unknown prediction id is not_found; a refused key is upstream_auth', async () => {
  expect((await failureOf(predictionStatus(endpoint, 'no-such', deps()))).kind).toBe('not_found');
  const badKey = { ...endpoint, apiKey: 'bad-key' };
  expect((await failureOf(predictionStatus(badKey, 'no-such', deps()))).kind).toBe('upstream_auth');
});

test('a cut connection or an unreadable answer is upstream_failed', async () => {
  await inject('reset_after_chunks:0');
  expect((await failureOf(runPrediction(endpoint, request({ prompt: 'p' }), deps()))).kind).toBe('upstream_failed');
  await inject('malformed_chunk');
  expect((await failureOf(runPrediction(endpoint, request({ prompt: 'p' }), deps()))).kind).toBe('upstream_failed');
});

describe('answers the fake does not give', () => {
  let server: Server;
  let answer: { status: number; body: string; headers?: Record<string, string> };
  let local: ProviderEndpoint;
  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(answer.status, answer.headers).end(answer.body));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    local = { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, apiKey: 'k' };
  });
  afterAll(() => new Promise((done) => server.close(done)));

  test('a retry-after hint on a 429 is kept', async () => {
    answer = {
      status: 429,
      body: '{"error":"RateLimitExceeded","message":"slow down"}',
      headers: { 'retry-after': '7' },
    };
    const error = await failureOf(runPrediction(local, request({ prompt: 'p' }), deps()));
    expect(error.details).toEqual({ status: 429, upstreamError: 'RateLimitExceeded', retryAfterMs: 7000 });
  });

  test('an HTML 502 is upstream_failed; an unknown status is still running; a run without id is unreadable', async () => {
    answer = { status: 502, body: '<html>bad gateway</html>' };
    expect((await failureOf(runPrediction(local, request({ prompt: 'p' }), deps()))).kind).toBe('upstream_failed');
    answer = { status: 200, body: '{"id":"x","status":"warming_up","output":null,"error":null}' };
    expect((await predictionStatus(local, 'x', deps())).status).toBe('processing');
    answer = { status: 200, body: '{"error":null}' };
    expect((await failureOf(runPrediction(local, request({ prompt: 'p' }), deps()))).kind).toBe('upstream_failed');
    answer = { status: 200, body: '{"id":"x","status":"completed","output":"not-a-list","error":null}' };
    expect((await failureOf(predictionStatus(local, 'x', deps()))).kind).toBe('upstream_failed');
  });

  test('a credits header that is not a whole number is ignored', async () => {
    answer = {
      status: 200,
      body: '{"id":"x","status":"completed","output":[],"error":null}',
      headers: { 'x-fashn-credits-used': 'lots' },
    };
    expect(await predictionStatus(local, 'x', deps())).not.toHaveProperty('creditsUsed');
  });
});
