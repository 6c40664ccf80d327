import { useLocalDynamoDb } from '../../support/local-dynamodb.js';
import { createFashnSimulator } from '../../../local/simulators/fashn.js';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';
import { submitFashionRun } from '../../../lambdas/http/fashion-run.js';
import { FashionError } from '../../../lambdas/providers/fashion/fashion-errors.js';
import { send } from '../../../lambdas/providers/http-transport.js';
import { IdempotencyError } from '../../../lambdas/store/idempotency.js';

/** Submitting a run against the FASHN fake, with Idempotency-Key records in dynalite. */
let sim: RunningSimulator;

useLocalDynamoDb('frun');
beforeAll(async () => {
  sim = await startSimulator(createFashnSimulator({ concurrency: 100 }));
});
afterAll(() => sim.close());

const deps = () => ({
  send,
  signal: AbortSignal.timeout(5_000),
  endpoint: async () => ({ baseUrl: `${sim.url}/v1`, apiKey: 'sim-local-key' }),
  now: () => 1_790_000_000_000,
});
const body = { model_name: 'model-create', inputs: { prompt: 'a model in linen' } };
const runs = () => sim.requests.filter((r) => r.path === '/v1/run').length;

test('answers the new prediction as spec 4.10 shows it', async () => {
  const run = await submitFashionRun({ body, accountId: 'a1' }, deps());
  expect(run.data).toEqual({
    prediction_id: expect.any(String),
    status: 'starting',
    model_name: 'model-create',
    created_at: 1_790_000_000_000,
  });
  expect(run.replayed).toBe(false);
  expect(run.request.model.name).toBe('model-create');
});

test('the same Idempotency-Key returns the same prediction, submitted once; without one, each call submits', async () => {
  const before = runs();
  const key = `k-${Date.now()}`;
  const first = await submitFashionRun({ body, accountId: 'a1', idempotencyKey: key }, deps());
  const again = await submitFashionRun({ body, accountId: 'a1', idempotencyKey: key }, deps());
  expect(again.data).toEqual(first.data);
  expect(again.replayed).toBe(true);
  expect(runs() - before).toBe(1);
  const other = await submitFashionRun({ body, accountId: 'a1' }, deps());
  expect(other.data.prediction_id).not.toBe(first.data.prediction_id);
});

test('the key with another body is refused; a malformed key or body never reaches the upstream', async () => {
  const key = `k2-${Date.now()}`;
  await submitFashionRun({ body, accountId: 'a1', idempotencyKey: key }, deps());
  const before = runs();
  const changed = { ...body, inputs: { prompt: 'another' } };
  await expect(submitFashionRun({ body: changed, accountId: 'a1', idempotencyKey: key }, deps())).rejects.toMatchObject(
    { kind: 'mismatch' },
  );
  const badKey = submitFashionRun({ body, accountId: 'a1', idempotencyKey: 'has space' }, deps());
  await expect(badKey).rejects.toBeInstanceOf(IdempotencyError);
  const badBody = submitFashionRun({ body: { model_name: 'reframe', inputs: {} }, accountId: 'a1' }, deps());
  await expect(badBody).rejects.toMatchObject({ kind: 'invalid_request', details: { field: 'inputs.image' } });
  expect(runs()).toBe(before);
});

test('an upstream refusal frees the key for a retry', async () => {
  const key = `k3-${Date.now()}`;
  await fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault: 'error:OutOfCredits' }) });
  await expect(submitFashionRun({ body, accountId: 'a1', idempotencyKey: key }, deps())).rejects.toMatchObject({
    kind: 'out_of_credits',
  });
  expect((await submitFashionRun({ body, accountId: 'a1', idempotencyKey: key }, deps())).replayed).toBe(false);
});

test('without a FASHN key the service is not configured', async () => {
  delete process.env['FASHN_API_KEY'];
  const { endpoint: _configured, ...unconfigured } = deps();
  const error = await submitFashionRun({ body, accountId: 'a1' }, unconfigured).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(FashionError);
  expect((error as FashionError).kind).toBe('not_configured');
});
