import { fashionPrediction, submitFashionJob } from '../../../lambdas/fashion/fashion-jobs.js';
import { watchFashionJob, type FashionWatchDeps } from '../../../lambdas/fashion/fashion-watch.js';
import { JobNotFoundError } from '../../../lambdas/jobs/job-lookup.js';
import { getOwnedJob, recordProgress, takePollLease, updateJobResult } from '../../../lambdas/jobs/job-repository.js';
import { joinWatchers, leaveWatchers } from '../../../lambdas/jobs/job-watchers.js';
import type { MediaJobDeps } from '../../../lambdas/jobs/media-job-deps.js';
import { SharedPolls } from '../../../lambdas/jobs/shared-polls.js';
import { FashionError } from '../../../lambdas/fashion/fashion-errors.js';
import type { FashionStreamEvent } from '../../../lambdas/fashion/subscribe-events.js';
import { IdempotencyError } from '../../../lambdas/store/idempotency.js';
import { meteredFor } from '../../support/job-upstream.js';
import { startMediaJobWorld, type MediaJobWorld } from '../../support/media-jobs.js';

/**
 * The fashion core over the embedded DynamoDB and the FASHN fake: submit (with Idempotency-Key),
 * status from the job record as the real status step moves it, the subscribe stream settling
 * the job itself, and usage written once whoever sees the end.
 */
let world: MediaJobWorld;
let simNow = Date.now();
let accounts = 0;

beforeAll(async () => {
  world = await startMediaJobWorld('fjobs', { now: () => simNow });
}, 30_000);
afterAll(() => world.stop());

const IMG = 'https://images.example.com/model.jpg';
const body = { model_name: 'model-create', inputs: { prompt: 'a model in linen' } };
const signal = () => AbortSignal.timeout(10_000);
const runs = () => world.fashn.requests.filter((r) => r.path === '/v1/run').length;

function owner() {
  const accountId = `acct-f${++accounts}`;
  return { accountId, keyId: `key-${accountId}`, requestId: `req-${accountId}-${Date.now()}`, route: 'fashion-run' };
}

async function collect(events: Promise<AsyncIterable<FashionStreamEvent>>): Promise<FashionStreamEvent[]> {
  const seen: FashionStreamEvent[] = [];
  for await (const event of await events) seen.push(event);
  return seen;
}

/** The world's dependencies plus watching's, as one instance of the subscribe function has them. */
const watching = (deps: MediaJobDeps): FashionWatchDeps => ({
  ...deps,
  watch: { takePollLease, recordProgress, joinWatchers, leaveWatchers, shared: new SharedPolls() },
});

test('run records the job, starts its poller and answers the prediction `starting`', async () => {
  const who = owner();
  const { prediction, replayed } = await submitFashionJob({ body, owner: who, signal: signal() }, world.deps());
  expect(replayed).toBe(false);
  expect(prediction).toEqual({
    predictionId: expect.stringMatching(/^job_[a-z2-7]{24}$/),
    status: 'starting',
    modelName: 'model-create',
    createdAt: expect.any(Number),
    output: null,
    error: null,
    webhook: null,
  });
  const job = await getOwnedJob(who.accountId, prediction.predictionId);
  expect(job).toMatchObject({
    kind: 'fashion',
    phase: 'queued',
    upstreamStatus: 'starting',
    model: 'model-create',
    details: { expectedCredits: 3 },
    requestId: who.requestId,
    route: 'fashion-run',
  });
  expect(Date.parse(job!.createdAt)).toBe(prediction.createdAt);
  expect(world.started.get(prediction.predictionId)).toMatchObject({ kind: 'fashion', pollIntervalSeconds: 3 });
});

test('status follows the record as the poller moves it; the end is metered once, however often it is seen', async () => {
  const who = owner();
  const inputs = { model_image: IMG, garment_image: IMG, num_samples: 2 };
  const { prediction } = await submitFashionJob(
    { body: { model_name: 'tryon-v1.6', inputs }, owner: who, signal: signal() },
    world.deps(),
  );
  const id = prediction.predictionId;
  const status = async () => (await fashionPrediction(who.accountId, id, signal(), world.deps())).status;
  expect(await status()).toBe('starting');
  const seen = [];
  for (let i = 0; i < 4; i++) {
    await world.pollOnce(who.accountId, id);
    seen.push(await status());
  }
  expect(seen).toEqual(['starting', 'in_queue', 'processing', 'completed']);
  const done = await fashionPrediction(who.accountId, id, signal(), world.deps());
  expect(done.output).toHaveLength(2);
  expect(done.error).toBeNull();
  await world.pollOnce(who.accountId, id);
  expect(await meteredFor(who.accountId)).toEqual({ requests: 1, costMicroUsd: 6 * 75_000 });
});

test('a failed prediction: status failed with FASHN’s error inside success, 0 credits', async () => {
  const who = owner();
  const inputs = { model_image: IMG, garment_image: `${IMG}#[sim:fail=ContentModerationError][sim:polls=1]` };
  const { prediction } = await submitFashionJob(
    { body: { model_name: 'tryon-v1.6', inputs }, owner: who, signal: signal() },
    world.deps(),
  );
  await world.pollOnce(who.accountId, prediction.predictionId);
  await world.pollOnce(who.accountId, prediction.predictionId);
  expect(await fashionPrediction(who.accountId, prediction.predictionId, signal(), world.deps())).toMatchObject({
    status: 'failed',
    output: null,
    error: { name: 'ContentModerationError' },
  });
  expect(await meteredFor(who.accountId)).toEqual({ requests: 1, costMicroUsd: 0 });
});

test('another account’s prediction, an unknown id and a malformed one are all not found', async () => {
  const who = owner();
  const { prediction } = await submitFashionJob({ body, owner: who, signal: signal() }, world.deps());
  for (const [accountId, id] of [
    ['acct-intruder', prediction.predictionId],
    [who.accountId, 'job_aaaaaaaaaaaaaaaaaaaaaaaa'],
    [who.accountId, `x`.repeat(5000)],
  ] as const) {
    await expect(fashionPrediction(accountId, id, signal(), world.deps())).rejects.toBeInstanceOf(JobNotFoundError);
  }
});

test('Idempotency-Key: a repeat answers the first prediction without a new run; another body is refused', async () => {
  const who = owner();
  const key = `k-${Date.now()}`;
  const before = runs();
  const first = await submitFashionJob({ body, owner: who, idempotencyKey: key, signal: signal() }, world.deps());
  const again = await submitFashionJob({ body, owner: who, idempotencyKey: key, signal: signal() }, world.deps());
  expect(again).toEqual({ prediction: first.prediction, replayed: true });
  expect(runs() - before).toBe(1);
  const changed = { ...body, inputs: { prompt: 'another' } };
  await expect(
    submitFashionJob({ body: changed, owner: who, idempotencyKey: key, signal: signal() }, world.deps()),
  ).rejects.toMatchObject({ kind: 'mismatch' });
  // Another account's same key is its own.
  const other = await submitFashionJob({ body, owner: owner(), idempotencyKey: key, signal: signal() }, world.deps());
  expect(other.prediction.predictionId).not.toBe(first.prediction.predictionId);
});

test('a malformed key or body, or no FASHN key, never reaches the upstream', async () => {
  const before = runs();
  const bad = (input: Partial<Parameters<typeof submitFashionJob>[0]>, deps = world.deps()) =>
    submitFashionJob({ body, owner: owner(), signal: signal(), ...input }, deps);
  await expect(bad({ idempotencyKey: 'has space' })).rejects.toBeInstanceOf(IdempotencyError);
  await expect(bad({ body: { model_name: 'reframe', inputs: {} } })).rejects.toMatchObject({
    kind: 'invalid_request',
    details: { field: 'inputs.image' },
  });
  const unconfigured = world.deps({
    fashn: async () => {
      throw new FashionError('not_configured', 'no key');
    },
  });
  await expect(bad({}, unconfigured)).rejects.toMatchObject({ kind: 'not_configured' });
  expect(runs()).toBe(before);
});

test('subscribe: the walk as events to completed; the stream settles the job, and the poller then finds it ended', async () => {
  const who = owner();
  const inputs = { image: IMG, num_images: 2 };
  const { prediction } = await submitFashionJob(
    { body: { model_name: 'reframe', inputs }, owner: who, signal: signal() },
    world.deps(),
  );
  const events = await collect(
    watchFashionJob(who.accountId, prediction.predictionId, signal(), watching(world.deps()), { intervalMs: 5 }),
  );
  const id = prediction.predictionId;
  expect(events).toEqual([
    { type: 'job_submitted', prediction_id: id, model_name: 'reframe' },
    { type: 'status_update', prediction_id: id, status: 'in_queue' },
    { type: 'status_update', prediction_id: id, status: 'processing' },
    {
      type: 'completed',
      prediction_id: id,
      status: 'completed',
      output: [expect.any(String), expect.any(String)],
      error: null,
    },
  ]);
  expect(await getOwnedJob(who.accountId, id)).toMatchObject({ phase: 'succeeded' });
  expect(await world.pollOnce(who.accountId, id)).toEqual({ done: true, phase: 'succeeded' });
  expect(await meteredFor(who.accountId)).toEqual({ requests: 1, costMicroUsd: 4 * 75_000 });
  // A second subscriber of the ended prediction gets its end from the record at once.
  const replay = await collect(watchFashionJob(who.accountId, id, signal(), watching(world.deps())));
  expect(replay.map((event) => event.type)).toEqual(['job_submitted', 'completed']);
});

test('subscribe to a prediction that ran longer than the stream: a final still_running, the job left to the poller', async () => {
  const who = owner();
  const { prediction } = await submitFashionJob(
    { body: { model_name: 'model-create', inputs: { prompt: 'slow [sim:polls=50]' } }, owner: who, signal: signal() },
    world.deps(),
  );
  const events = await collect(
    watchFashionJob(who.accountId, prediction.predictionId, signal(), watching(world.deps()), {
      intervalMs: 5,
      maxMs: 60,
    }),
  );
  expect(events.at(-1)).toMatchObject({ type: 'still_running' });
  expect(await getOwnedJob(who.accountId, prediction.predictionId)).toMatchObject({ phase: 'queued' });
  expect(await meteredFor(who.accountId)).toEqual({ requests: 0, costMicroUsd: 0 });
});

test('outputs kept at the upstream are read there, and after FASHN’s 60 minutes reported expired', async () => {
  const who = owner();
  const inputs = { image: IMG, return_base64: true, prompt: '[sim:polls=0]' };
  const { prediction } = await submitFashionJob(
    { body: { model_name: 'background-change', inputs }, owner: who, signal: signal() },
    world.deps(),
  );
  const id = prediction.predictionId;
  await world.pollOnce(who.accountId, id);
  const job = (await getOwnedJob(who.accountId, id))!;
  expect(job.phase).toBe('succeeded');
  // As a record of outputs too large to keep would say (the fake's base64 images are tiny).
  await updateJobResult(job, { outputsAtUpstream: true });
  const read = await fashionPrediction(who.accountId, id, signal(), world.deps());
  expect(read).toMatchObject({ status: 'completed', error: null, output: [expect.stringMatching(/^data:image\//)] });
  simNow += 61 * 60_000;
  try {
    expect(await fashionPrediction(who.accountId, id, signal(), world.deps())).toMatchObject({
      status: 'completed',
      output: null,
      error: { name: 'OutputExpired' },
    });
  } finally {
    simNow = Date.now();
  }
});

test('a prediction whose poller is long overdue is reported failed (Job.TimedOut)', async () => {
  const who = owner();
  const { prediction } = await submitFashionJob({ body, owner: who, signal: signal() }, world.deps());
  const later = world.deps({ now: () => new Date(Date.now() + 36 * 60_000) });
  expect(await fashionPrediction(who.accountId, prediction.predictionId, signal(), later)).toMatchObject({
    status: 'failed',
    error: { name: 'Job.TimedOut' },
  });
  expect(await fashionPrediction(who.accountId, prediction.predictionId, signal(), world.deps())).toMatchObject({
    status: 'starting',
  });
});

test('subscribe: a failure of the gateway’s own while watching is the stream’s last event, not a cut', async () => {
  const who = owner();
  const { prediction } = await submitFashionJob({ body, owner: who, signal: signal() }, world.deps());
  const broken = world.deps({
    jobs: {
      ...world.deps().jobs,
      getOwnedJob: async () => {
        throw new Error('DynamoDB is away');
      },
    },
  });
  expect(await collect(watchFashionJob(who.accountId, prediction.predictionId, signal(), watching(broken)))).toEqual([
    {
      type: 'error',
      prediction_id: prediction.predictionId,
      message: 'watching the prediction failed; poll its status',
    },
  ]);
});

test('subscribe after a submission reads no record: the submission hands the watcher the one it made', async () => {
  const who = owner();
  const submitted = await submitFashionJob(
    { body: { model_name: 'reframe', inputs: { image: IMG } }, owner: who, signal: signal() },
    world.deps(),
  );
  expect(submitted.job).toMatchObject({ jobId: submitted.prediction.predictionId, phase: 'queued' });
  let reads = 0;
  const counting = world.deps({
    jobs: { ...world.deps().jobs, getOwnedJob: (...args) => (reads++, getOwnedJob(...args)) },
  });
  const events = await collect(
    watchFashionJob(who.accountId, submitted.prediction.predictionId, signal(), watching(counting), {
      intervalMs: 5,
      job: submitted.job,
    }),
  );
  expect(events.at(-1)).toMatchObject({ type: 'completed' });
  expect(reads).toBe(0);
  // A replay made no record, so its watcher reads the one there is.
  const key = { idempotencyKey: `w-${Date.now()}` };
  const first = await submitFashionJob({ body, owner: who, signal: signal(), ...key }, world.deps());
  const again = await submitFashionJob({ body, owner: who, signal: signal(), ...key }, world.deps());
  expect([first.job?.jobId, again.job]).toEqual([first.prediction.predictionId, undefined]);
});
