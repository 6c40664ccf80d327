import {
  fashionJobDriver,
  fashionProgressOf,
  MAX_RECORDED_OUTPUT_CHARS,
} from '../../../lambdas/fashion/fashion-job-driver.js';
import { isJobEnd, type JobEnd, type JobProgress } from '../../../lambdas/jobs/job-driver.js';
import type { JobRecord } from '../../../lambdas/jobs/job-record.js';
import { send } from '../../../lambdas/providers/http-transport.js';
import { runPrediction } from '../../../lambdas/fashion/fashn-wire.js';
import { parseFashionRequest } from '../../../lambdas/fashion/fashion-request.js';
import { expectedCredits } from '../../../lambdas/fashion/credits.js';
import { createFashnSimulator } from '../../../local/simulators/fashn.js';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';

/** The fashion job kind against the FASHN fake on loopback: the walk, the end, the bill. */
let sim: RunningSimulator;
const KEY = 'sim-local-key';
const IMG = 'https://images.example.com/model.jpg';
beforeAll(async () => {
  sim = await startSimulator(createFashnSimulator({ concurrency: 100 }));
});
afterAll(() => sim.close());

// The platform's FASHN endpoint, as a deployment gives the driver its configured one.
const deps = () => ({
  endpoint: async () => ({ baseUrl: `${sim.url}/v1`, apiKey: KEY }),
  send,
  signal: AbortSignal.timeout(5_000),
});

async function submitted(model_name: string, inputs: Record<string, unknown>): Promise<JobRecord> {
  const request = parseFashionRequest({ model_name, inputs });
  const { predictionId } = await runPrediction({ baseUrl: `${sim.url}/v1`, apiKey: KEY }, request, deps());
  const at = new Date().toISOString();
  return {
    jobId: 'job_test',
    kind: 'fashion',
    accountId: 'acc_1',
    requestId: 'req_1',
    route: 'fashion-run',
    provider: 'fashn',
    model: model_name,
    upstreamJobId: predictionId,
    phase: 'queued',
    upstreamStatus: 'starting',
    details: { expectedCredits: expectedCredits(request) },
    createdAt: at,
    updatedAt: at,
    polls: 0,
    expiresAt: 0,
  };
}

async function pollToEnd(job: JobRecord): Promise<[JobProgress[], JobEnd]> {
  const seen: JobProgress[] = [];
  for (let i = 0; i < 10; i++) {
    const progress = await fashionJobDriver.poll(job, deps());
    seen.push(progress);
    if (isJobEnd(progress)) return [seen, progress];
  }
  throw new Error('the prediction did not end in 10 polls');
}

test('a prediction walks queued, running, then succeeds with its outputs; FASHN’s credit figure is billed', async () => {
  const job = await submitted('tryon-v1.6', { model_image: IMG, garment_image: IMG, num_samples: 2 });
  const [seen, end] = await pollToEnd(job);
  expect(seen.map((p) => [p.phase, p.upstreamStatus])).toEqual([
    ['queued', 'starting'],
    ['queued', 'in_queue'],
    ['running', 'processing'],
    ['succeeded', 'completed'],
  ]);
  expect(end).toMatchObject({
    result: { output: [expect.stringContaining('/cdn/'), expect.any(String)], creditsUsed: 6 },
  });
  expect(fashionJobDriver.usage(job, end)).toEqual({
    model: 'fashn/credit',
    provider: 'fashn',
    unit: 'credits',
    quantity: 6,
    status: 200,
    outcome: 'ok',
    estimated: false,
  });
});

test('without FASHN’s figure the request’s credits are billed, marked estimated (5 with a face reference)', async () => {
  const job = await submitted('model-swap', { model_image: IMG, face_reference: IMG, prompt: '[sim:credits=none]' });
  const [, end] = await pollToEnd(job);
  expect(fashionJobDriver.usage(job, end)).toMatchObject({ quantity: 5, estimated: true, outcome: 'ok' });
});

test('a failed prediction ends failed under FASHN’s error name and costs 0 credits', async () => {
  const job = await submitted('tryon-v1.6', { model_image: IMG, garment_image: `${IMG}#[sim:fail=PoseError]` });
  const [, end] = await pollToEnd(job);
  expect(end).toMatchObject({ phase: 'failed', error: { name: 'PoseError' } });
  expect(fashionJobDriver.usage(job, end)).toMatchObject({
    quantity: 0,
    outcome: 'failed:PoseError',
    estimated: false,
  });
});

test('base64 without its data: prefix is FASHN’s ImageLoadError, at 0 credits', async () => {
  const job = await submitted('background-remove', { image: 'A'.repeat(120) });
  const [, end] = await pollToEnd(job);
  expect(end).toMatchObject({ phase: 'failed', error: { name: 'ImageLoadError' } });
  expect(fashionJobDriver.usage(job, end)?.quantity).toBe(0);
});

test('throttling and outages are thrown as retryable; an unknown prediction ends the job as NotFound', async () => {
  const job = await submitted('reframe', { image: IMG });
  await fetch(`${sim.url}/__sim/faults`, {
    method: 'POST',
    body: JSON.stringify({ fault: 'error:RateLimitExceeded' }),
  });
  await expect(fashionJobDriver.poll(job, deps())).rejects.toMatchObject({ failure: { kind: 'rate_limit' } });
  await fetch(`${sim.url}/__sim/faults`, {
    method: 'POST',
    body: JSON.stringify({ fault: 'error:InternalServerError' }),
  });
  await expect(fashionJobDriver.poll(job, deps())).rejects.toMatchObject({ failure: { kind: 'overload' } });
  const gone = await fashionJobDriver.poll({ ...job, upstreamJobId: 'no-such-prediction' }, deps());
  expect(gone).toMatchObject({ phase: 'failed', error: { name: 'NotFound' } });
});

test('outputs too large for the job record are left at the upstream, which serves them an hour', () => {
  const big = `data:image/png;base64,${'A'.repeat(MAX_RECORDED_OUTPUT_CHARS)}`;
  expect(fashionProgressOf({ id: 'p', status: 'completed', output: [big], error: null, creditsUsed: 3 })).toEqual({
    phase: 'succeeded',
    upstreamStatus: 'completed',
    result: { outputsAtUpstream: true, creditsUsed: 3 },
  });
  expect(fashionProgressOf({ id: 'p', status: 'completed', output: ['https://cdn/x.png'], error: null })).toEqual({
    phase: 'succeeded',
    upstreamStatus: 'completed',
    result: { output: ['https://cdn/x.png'] },
  });
});
