import { settledUsage } from './support/settled-usage.js';
import fc from 'fast-check';
import { createKey, provisionAccount } from './support/provisioning.js';
import { bearer, call, type Answer } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';

/**
 * The video routes over HTTP against the local runtime (docs/interface.md §4.9): submit, the Step Functions
 * stand-in polling the MiniMax fake, status with a download link that answers, every
 * validation rule a 400 naming its field before any upstream call, and tenancy.
 */
const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'WARN', GATEWAY_JOB_WAIT_MS: '100' },
  account: 'video',
  key: { via: 'dashboard' },
  simulator: 'minimax',
});

const submit = (body: unknown, apiKey = local.key) =>
  call(local.gateway.url('/api/v1/media/video'), { headers: bearer(apiKey), body });
const status = (taskId: string, apiKey = local.key) =>
  call(local.gateway.url(`/api/v1/media/video/status?task_id=${encodeURIComponent(taskId)}`), {
    headers: bearer(apiKey),
  });

async function until(taskId: string, done: (answer: Answer) => boolean): Promise<Answer> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const answer = await status(taskId);
    if (done(answer) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const submissions = async () =>
  (await local.simulator.requests()).filter((r) => r.path === '/v1/video_generation').length;

test('submit → Queueing/Processing → Success with a download URL that answers with the video', async () => {
  const submitted = await submit({ prompt: 'A lighthouse at dusk [Push in]', duration: 6 });
  expect(submitted.status).toBe(200);
  expect(submitted.body).toEqual({
    success: true,
    data: { task_id: expect.stringMatching(/^job_[a-z2-7]{24}$/), status: 'submitted', model: 'minimax-video-2.3' },
  });
  expect(submitted.headers.get('x-ratelimit-limit')).toBe('600');
  const taskId = submitted.body.data.task_id as string;
  const first = await status(taskId);
  expect(first.status).toBe(200);
  expect(['Queueing', 'Processing', 'Success']).toContain(first.body.data.status);
  const done = await until(taskId, (answer) => answer.body?.data?.status === 'Success');
  expect(done.body).toEqual({
    success: true,
    data: {
      task_id: taskId,
      status: 'Success',
      model: 'minimax-video-2.3',
      file_id: expect.stringMatching(/^\d+$/),
      download_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/cdn\/video\//),
      error: null,
      webhook: null,
    },
  });
  const video = await fetch(done.body.data.download_url);
  expect([video.status, video.headers.get('content-type')]).toEqual([200, 'video/mp4']);
  expect(
    Buffer.from(await video.arrayBuffer())
      .subarray(4, 8)
      .toString('latin1'),
  ).toBe('ftyp');
  // Six seconds of 1080P, metered once under the submit route.
  const usage = await settledUsage(local.gateway.url('/api/v1/usage'), bearer(local.key), 1);
  expect(usage.body.data.byRoute['media-video']).toMatchObject({ requests: 1, units: { seconds: 6 } });
  expect(usage.body.data.byModel['minimax/MiniMax-Hailuo-2.3/1080P']).toMatchObject({ units: { seconds: 6 } });
});

test('a video MiniMax fails is Fail with its reason; the submit answered submitted', async () => {
  const submitted = await submit({ prompt: 'A storm [sim:fail=1026]' });
  const done = await until(submitted.body.data.task_id, (answer) => answer.body?.data?.status === 'Fail');
  expect(done.body.data).toMatchObject({
    status: 'Fail',
    file_id: null,
    download_url: null,
    error: { name: 'content_filter' },
  });
});

describe('validation: every rule of docs/interface.md §4.9 is a 400 naming its field, before any upstream call', () => {
  test.each<[string, Record<string, unknown>]>([
    ['prompt', {}],
    ['prompt', { prompt: 7 }],
    ['prompt', { prompt: '   ' }],
    ['prompt', { prompt: 'x'.repeat(2001) }],
    ['prompt', { prompt: 'A shot [Pan up]' }],
    ['prompt', { prompt: 'A shot [Pan left,Zoom in,Tilt up,Shake]' }],
    ['model', { prompt: 'p', model: 'minimax-video-9' }],
    ['duration', { prompt: 'p', duration: 7 }],
    ['duration', { prompt: 'p', duration: '6' }],
    ['duration', { prompt: 'p', duration: 10, resolution: '1080P' }],
    ['resolution', { prompt: 'p', resolution: '4K' }],
    ['prompt_optimizer', { prompt: 'p', prompt_optimizer: 'yes' }],
    ['first_frame_image', { prompt: 'p', model: 'minimax-video-2.3-Fast' }],
    ['first_frame_image', { prompt: 'p', first_frame_image: 'ftp://example.com/a.png' }],
    ['first_frame_image', { prompt: 'p', first_frame_image: `https://example.com/${'a'.repeat(2100)}` }],
    ['callback_url', { prompt: 'p', callback_url: 'https://example.com' }],
  ])('%s: %j', async (field, body) => {
    const before = await submissions();
    const answer = await submit(body);
    expect([answer.status, answer.body.error.code, answer.body.error.field]).toEqual([400, 'BAD_REQUEST', field]);
    expect(answer.body.error.message).toMatch(new RegExp(`^${field}`));
    expect(await submissions()).toBe(before);
  });

  test('720P is made at 768P, and 10 s without a resolution at 768P', async () => {
    await submit({ prompt: 'p', resolution: '720P' });
    await submit({ prompt: 'p', duration: 10 });
    const sent = (await local.simulator.requests()).filter((r) => r.path === '/v1/video_generation').slice(-2);
    expect(sent.map((r) => [r.body.resolution, r.body.duration])).toEqual([
      ['768P', 6],
      ['768P', 10],
    ]);
  });

  test('status without task_id is a 400 naming it', async () => {
    const answer = await call(local.gateway.url('/api/v1/media/video/status'), { headers: bearer(local.key) });
    expect([answer.status, answer.body.error.field]).toEqual([400, 'task_id']);
  });
});

test('a task of another account, or an unknown one, is a 404', async () => {
  const { task_id: taskId } = (await submit({ prompt: 'Rain on a window' })).body.data;
  const other = await provisionAccount(local.gateway, 'video-other');
  const otherKey = (await createKey(local.gateway, other)).key;
  for (const [id, apiKey] of [
    [taskId, otherKey],
    ['job_aaaaaaaaaaaaaaaaaaaaaaaa', local.key],
    ['not-a-task', local.key],
  ] as const) {
    const answer = await status(id, apiKey);
    expect([answer.status, answer.body.error.code, answer.body.error.field]).toEqual([404, 'NOT_FOUND', 'task_id']);
  }
});

test('property: no body yields a 5xx', async () => {
  const nearValid = fc.record(
    {
      prompt: fc.oneof(fc.string({ maxLength: 40 }), fc.constant('[Zoom out] a bay'), fc.integer()),
      model: fc.constantFrom('minimax-video-2.3', 'minimax-video-2.3-Fast', 'x'),
      duration: fc.oneof(fc.constantFrom(6, 10), fc.integer(), fc.double()),
      resolution: fc.constantFrom('720P', '768P', '1080P', '1080p'),
      prompt_optimizer: fc.oneof(fc.boolean(), fc.string()),
      first_frame_image: fc.oneof(fc.webUrl(), fc.string()),
    },
    { requiredKeys: [] },
  );
  await fc.assert(
    fc.asyncProperty(fc.oneof(nearValid, fc.jsonValue()), async (body) => {
      const answer = await submit(body);
      expect(answer.status).toBeLessThan(500);
    }),
    { numRuns: 60 },
  );
});
