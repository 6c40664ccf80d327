import { JobNotFoundError } from '../../../lambdas/jobs/job-lookup.js';
import { getOwnedJob, updateJobResult } from '../../../lambdas/jobs/job-repository.js';
import { submitVideoJob, videoJobStatus } from '../../../lambdas/media/video-jobs.js';
import { submitFashionJob } from '../../../lambdas/fashion/fashion-jobs.js';
import { MediaError } from '../../../lambdas/media/media-errors.js';
import { meteredFor } from '../../support/job-upstream.js';
import { startMediaJobWorld, type MediaJobWorld } from '../../support/media-jobs.js';

/**
 * The video core over the embedded DynamoDB and the MiniMax fake: submit, status from the job
 * record as the real status step moves it, download links that always work, usage once.
 */
let world: MediaJobWorld;
let accounts = 0;

beforeAll(async () => {
  world = await startMediaJobWorld('vjobs');
}, 30_000);
afterAll(() => world.stop());

const signal = () => AbortSignal.timeout(10_000);
const minimaxCalls = (path: string) => world.minimax.requests.filter((r) => r.path === path).length;

function owner() {
  const accountId = `acct-v${++accounts}`;
  return { accountId, keyId: `key-${accountId}`, requestId: `req-${accountId}-${Date.now()}`, route: 'media-video' };
}

test('submit records the job and starts its poller; status walks Queueing, Processing, Success with a link', async () => {
  const who = owner();
  const submitted = await submitVideoJob({ prompt: 'A lighthouse [push in]' }, who, signal(), world.deps());
  expect(submitted).toEqual({
    taskId: expect.stringMatching(/^job_[a-z2-7]{24}$/),
    status: 'submitted',
    model: 'minimax-video-2.3',
    fileId: null,
    downloadUrl: null,
    error: null,
    webhook: null,
  });
  const job = await getOwnedJob(who.accountId, submitted.taskId);
  expect(job).toMatchObject({
    kind: 'video',
    model: 'MiniMax-Hailuo-2.3',
    details: { model: 'minimax-video-2.3', duration: 6, resolution: '1080P' },
  });
  expect(world.started.get(submitted.taskId)).toMatchObject({ kind: 'video', pollIntervalSeconds: 10 });
  const sent = world.minimax.requests.filter((r) => r.path === '/v1/video_generation').at(-1)!;
  expect(sent.body).toMatchObject({ prompt: 'A lighthouse [Push in]', model: 'MiniMax-Hailuo-2.3' });

  const statuses = [(await videoJobStatus(who.accountId, submitted.taskId, signal(), world.deps())).status];
  for (let i = 0; i < 4; i++) {
    await world.pollOnce(who.accountId, submitted.taskId);
    statuses.push((await videoJobStatus(who.accountId, submitted.taskId, signal(), world.deps())).status);
  }
  expect(statuses).toEqual(['Queueing', 'Queueing', 'Queueing', 'Processing', 'Success']);
  const done = await videoJobStatus(who.accountId, submitted.taskId, signal(), world.deps());
  expect(done).toMatchObject({ status: 'Success', fileId: expect.stringMatching(/^\d+$/), error: null });
  const video = await fetch(done.downloadUrl!);
  expect([video.status, video.headers.get('content-type')]).toEqual([200, 'video/mp4']);
  expect(await meteredFor(who.accountId)).toMatchObject({ requests: 1 });
});

test('the download link is fetched once and kept; with under 10 minutes left a fresh one replaces it', async () => {
  const who = owner();
  const { taskId } = await submitVideoJob({ prompt: 'Dunes [sim:polls=1]' }, who, signal(), world.deps());
  await world.pollOnce(who.accountId, taskId);
  const retrievals = () => minimaxCalls('/v1/files/retrieve');
  const before = retrievals();
  const first = await videoJobStatus(who.accountId, taskId, signal(), world.deps());
  const second = await videoJobStatus(who.accountId, taskId, signal(), world.deps());
  expect(second.downloadUrl).toBe(first.downloadUrl);
  expect(retrievals() - before).toBe(1);
  // 55 minutes on, the kept link (an hour) has 5 left: a fresh one is fetched and kept.
  const later = world.deps({ now: () => new Date(Date.now() + 55 * 60_000) });
  const refreshed = await videoJobStatus(who.accountId, taskId, signal(), later);
  expect(retrievals() - before).toBe(2);
  expect((await getOwnedJob(who.accountId, taskId))!.result).toMatchObject({
    download_url: refreshed.downloadUrl,
    download_url_expires_at: expect.any(Number),
  });
});

test('a video MiniMax fails is Fail with its reason, and bills 0 seconds', async () => {
  const who = owner();
  const { taskId } = await submitVideoJob(
    { prompt: 'A storm [sim:fail=1027][sim:polls=1]' },
    who,
    signal(),
    world.deps(),
  );
  await world.pollOnce(who.accountId, taskId);
  expect(await videoJobStatus(who.accountId, taskId, signal(), world.deps())).toMatchObject({
    status: 'Fail',
    fileId: null,
    downloadUrl: null,
    error: { name: 'content_filter' },
  });
  expect(await meteredFor(who.accountId)).toEqual({ requests: 1, costMicroUsd: 0 });
});

test('refusals come before any upstream call; MiniMax refusing is a MediaError naming the prompt', async () => {
  const before = minimaxCalls('/v1/video_generation');
  await expect(
    submitVideoJob({ prompt: 'x', resolution: '1080P', duration: 10 }, owner(), signal(), world.deps()),
  ).rejects.toMatchObject({ kind: 'invalid_request', details: { field: 'duration' } });
  await expect(
    submitVideoJob({ prompt: 'x' }, owner(), signal(), world.deps({ minimax: async () => undefined })),
  ).rejects.toMatchObject({ kind: 'not_configured' });
  expect(minimaxCalls('/v1/video_generation')).toBe(before);
  await fetch(`${world.minimax.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault: 'error:1026' }) });
  const refused = await submitVideoJob({ prompt: 'x' }, owner(), signal(), world.deps()).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(MediaError);
  expect(refused).toMatchObject({ kind: 'refused', details: { field: 'prompt' } });
});

test('another account’s task, an unknown one and a fashion prediction’s id are not found', async () => {
  const who = owner();
  const { taskId } = await submitVideoJob({ prompt: 'Rain' }, who, signal(), world.deps());
  const fashion = await submitFashionJob(
    { body: { model_name: 'model-create', inputs: { prompt: 'p' } }, owner: who, signal: signal() },
    world.deps(),
  );
  for (const [accountId, id] of [
    ['acct-intruder', taskId],
    [who.accountId, 'job_aaaaaaaaaaaaaaaaaaaaaaaa'],
    [who.accountId, fashion.prediction.predictionId],
    [who.accountId, '../../etc'],
  ] as const) {
    await expect(videoJobStatus(accountId, id, signal(), world.deps())).rejects.toBeInstanceOf(JobNotFoundError);
  }
});

test('the file API failing at a status read is the provider’s failure, never the caller’s', async () => {
  const who = owner();
  const { taskId } = await submitVideoJob({ prompt: 'Snow [sim:polls=1]' }, who, signal(), world.deps());
  await world.pollOnce(who.accountId, taskId);
  const job = (await getOwnedJob(who.accountId, taskId))!;
  await updateJobResult(job, { file_id: '999999999999999' });
  await expect(videoJobStatus(who.accountId, taskId, signal(), world.deps())).rejects.toMatchObject({
    kind: 'upstream_failed',
  });
  await fetch(`${world.minimax.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault: 'error:1002' }) });
  await expect(videoJobStatus(who.accountId, taskId, signal(), world.deps())).rejects.toMatchObject({
    kind: 'rate_limited',
  });
});
