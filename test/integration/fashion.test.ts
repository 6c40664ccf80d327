import { settledUsage } from './support/settled-usage.js';
import fc from 'fast-check';
import { createKey, provisionAccount } from './support/provisioning.js';
import { bearer, call, type Answer } from './support/http.js';
import { useGateway } from './support/gateway-fixture.js';

/**
 * The fashion routes over HTTP against the local runtime and its FASHN fake (docs/interface.md §4.10, §6.3,
 * 8): run → completed with outputs, a failed prediction at 0 credits, the Idempotency-Key, `meta` on every answer,
 * the per-key limits, tenancy, and every validation rule a 400 naming its field. The subscribe
 * stream has a file of its own (fashion-subscribe.test.ts).
 */
const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'WARN', GATEWAY_JOB_WAIT_MS: '100' },
  account: 'fashion',
  key: { via: 'dashboard' },
  simulator: 'fashn',
  unthrottled: true,
});

const IMG = 'https://images.example.com/model.jpg';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A fresh key per test that counts requests, so each starts with full per-key windows. */
async function freshKey(): Promise<string> {
  return (await createKey(local.gateway, local.account)).key;
}

const run = (body: unknown, apiKey = local.key, headers: Record<string, string> = {}) =>
  call(local.gateway.url('/api/v1/fashion/run'), { headers: { ...bearer(apiKey), ...headers }, body });
const status = (id: string, apiKey = local.key) =>
  call(local.gateway.url(`/api/v1/fashion/status/${encodeURIComponent(id)}`), { headers: bearer(apiKey) });

async function until(id: string, apiKey: string, done: (answer: Answer) => boolean): Promise<Answer> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const answer = await status(id, apiKey);
    if (done(answer) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

const ended = (answer: Answer) => ['completed', 'failed'].includes(answer.body?.data?.status);
const runs = async () => (await local.simulator.requests()).filter((r) => r.path === '/v1/run').length;

test('run → completed with outputs that answer; meta on every answer; credits in usage', async () => {
  const apiKey = await freshKey();
  const answer = await run(
    { model_name: 'tryon-v1.6', inputs: { model_image: IMG, garment_image: IMG, num_samples: 2 } },
    apiKey,
  );
  expect(answer.status).toBe(200);
  expect(answer.body).toEqual({
    success: true,
    data: {
      prediction_id: expect.stringMatching(/^job_[a-z2-7]{24}$/),
      status: 'starting',
      model_name: 'tryon-v1.6',
      created_at: expect.any(Number),
    },
    meta: { requestId: answer.headers.get('x-request-id'), timestamp: expect.any(String) },
  });
  expect(answer.body.meta.requestId).toMatch(UUID);
  expect(answer.headers.get('x-ratelimit-limit')).toBe('30');
  const id = answer.body.data.prediction_id as string;
  const done = await until(id, apiKey, ended);
  expect(done.body).toEqual({
    success: true,
    data: {
      prediction_id: id,
      status: 'completed',
      model_name: 'tryon-v1.6',
      created_at: answer.body.data.created_at,
      output: [expect.stringMatching(/\/cdn\//), expect.stringMatching(/\/cdn\//)],
      error: null,
      webhook: null,
    },
    meta: { requestId: expect.stringMatching(UUID), timestamp: expect.any(String) },
  });
  expect(done.headers.get('x-ratelimit-limit')).toBe('40');
  const image = await fetch(done.body.data.output[0]);
  expect([image.status, image.headers.get('content-type')]).toEqual([200, 'image/png']);
  const usage = await settledUsage(local.gateway.url('/api/v1/usage'), bearer(apiKey), 1);
  expect(usage.body.data.byRoute['fashion-run']).toMatchObject({ units: { credits: 6 } });
});

test('a failed prediction: failed with its error inside success:true, and 0 credits in usage', async () => {
  const other = await provisionAccount(local.gateway, 'fashion-failed');
  const apiKey = (await createKey(local.gateway, other)).key;
  const answer = await run(
    { model_name: 'background-remove', inputs: { image: `${IMG}?x=[sim:fail=PoseError]` } },
    apiKey,
  );
  const done = await until(answer.body.data.prediction_id, apiKey, ended);
  expect(done.status).toBe(200);
  expect(done.body).toMatchObject({
    success: true,
    data: { status: 'failed', output: null, error: { name: 'PoseError', message: expect.any(String) } },
  });
  // Base64 without its data: prefix is FASHN's own ImageLoadError, reported as such.
  const bare = await run({ model_name: 'background-remove', inputs: { image: 'QUJD'.repeat(40) } }, apiKey);
  const failed = await until(bare.body.data.prediction_id, apiKey, ended);
  expect(failed.body.data.error.name).toBe('ImageLoadError');
  const usage = await settledUsage(local.gateway.url('/api/v1/usage'), bearer(apiKey), 2);
  expect(usage.body.data).toMatchObject({ totalRequests: 2, totalCost: 0, units: { credits: 0 } });
});

test('the same Idempotency-Key returns the same prediction without a new run; another body is 422', async () => {
  const apiKey = await freshKey();
  const body = { model_name: 'model-create', inputs: { prompt: 'a model in linen' } };
  const idem = { 'Idempotency-Key': `order-${Date.now()}` };
  const before = await runs();
  const first = await run(body, apiKey, idem);
  const again = await run(body, apiKey, idem);
  expect(again.body.data).toEqual(first.body.data);
  expect([first.headers.get('idempotency-replayed'), again.headers.get('idempotency-replayed')]).toEqual([
    null,
    'true',
  ]);
  expect((await runs()) - before).toBe(1);
  const reused = await run({ ...body, inputs: { prompt: 'another' } }, apiKey, idem);
  expect([reused.status, reused.body.error.code, reused.body.error.field]).toEqual([
    422,
    'IDEMPOTENCY_KEY_REUSED',
    'Idempotency-Key',
  ]);
  expect(reused.body.meta.requestId).toMatch(UUID);
  const malformed = await run(body, apiKey, { 'Idempotency-Key': 'has space' });
  expect([malformed.status, malformed.body.error.field]).toEqual([400, 'Idempotency-Key']);
});

test('another account cannot read a prediction; errors carry meta too', async () => {
  const apiKey = await freshKey();
  const { prediction_id: id } = (await run({ model_name: 'model-create', inputs: { prompt: 'p' } }, apiKey)).body.data;
  const intruder = await provisionAccount(local.gateway, 'fashion-intruder');
  const intruderKey = (await createKey(local.gateway, intruder)).key;
  for (const [candidate, caller] of [
    [id, intruderKey],
    ['job_aaaaaaaaaaaaaaaaaaaaaaaa', apiKey],
    ['x'.repeat(300), apiKey],
  ] as const) {
    const answer = await status(candidate, caller);
    expect([answer.status, answer.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect(answer.body.meta).toEqual({ requestId: expect.stringMatching(UUID), timestamp: expect.any(String) });
  }
  const unauthenticated = await call(local.gateway.url(`/api/v1/fashion/status/${id}`));
  expect([unauthenticated.status, unauthenticated.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
  expect(unauthenticated.body.meta.requestId).toMatch(UUID);
});

test('per-key limits: status 40 per 10 s, then 429 with Retry-After and the rate headers; other keys unaffected', async () => {
  const apiKey = await freshKey();
  const answers = [];
  for (let i = 0; i < 41; i++) answers.push(await status('job_aaaaaaaaaaaaaaaaaaaaaaaa', apiKey));
  expect(answers.slice(0, 40).every((answer) => answer.status === 404)).toBe(true);
  const refused = answers[40]!;
  expect([refused.status, refused.body.error.code]).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(refused.body.meta.requestId).toMatch(UUID);
  expect((await status('job_aaaaaaaaaaaaaaaaaaaaaaaa', await freshKey())).status).toBe(404);
});

test('FASHN’s own limits: its rate limit and concurrency cap are 429 with Retry-After; no credits is 503', async () => {
  const apiKey = await freshKey();
  // A model no other test runs, so the pollers of earlier tests' jobs do not take the faults.
  const body = { model_name: 'face-to-model', inputs: { face_image: IMG } };
  for (const [fault, code, retry] of [
    ['error:RateLimitExceeded', 429, true],
    ['error:ConcurrencyLimitExceeded', 429, true],
    ['error:OutOfCredits', 503, false],
    ['error:InternalServerError', 503, false],
  ] as const) {
    await local.simulator.fault(fault, 1, 'face-to-model');
    const answer = await run(body, apiKey);
    expect([fault, answer.status, answer.headers.has('retry-after')]).toEqual([fault, code, retry]);
    expect(answer.body.meta.requestId).toMatch(UUID);
  }
});

describe('validation: every rule of docs/interface.md §4.10 is a 400 naming its field, before an upstream call', () => {
  const image = (inputs: Record<string, unknown>, model = 'background-remove') => ({ model_name: model, inputs });
  const tryon = (extra: Record<string, unknown>) =>
    image({ model_image: IMG, garment_image: IMG, ...extra }, 'tryon-v1.6');
  test.each<[string, unknown]>([
    ['model_name', { inputs: {} }],
    ['model_name', { model_name: 'tryon-v9', inputs: {} }],
    ['inputs', { model_name: 'reframe' }],
    ['inputs', { model_name: 'reframe', inputs: [] }],
    ['webhook', { model_name: 'reframe', inputs: { image: IMG }, webhook: 'x' }],
    ['inputs.model_image', image({ garment_image: IMG }, 'tryon-v1.6')],
    ['inputs.garment_image', image({ model_image: IMG }, 'tryon-v1.6')],
    ['inputs.product_image', image({}, 'product-to-model')],
    ['inputs.face_image', image({}, 'face-to-model')],
    ['inputs.prompt', image({}, 'model-create')],
    ['inputs.model_image', image({}, 'model-variation')],
    ['inputs.model_image', image({}, 'model-swap')],
    ['inputs.image', image({}, 'reframe')],
    ['inputs.prompt', image({ image: IMG }, 'background-change')],
    ['inputs.image', image({})],
    ['inputs.image', image({}, 'image-to-video')],
    ['inputs.category', tryon({ category: 'hats' })],
    ['inputs.mode', tryon({ mode: 'fast' })],
    ['inputs.garment_photo_type', tryon({ garment_photo_type: 'photo' })],
    ['inputs.moderation_level', tryon({ moderation_level: 'strict' })],
    ['inputs.num_samples', tryon({ num_samples: 0 })],
    ['inputs.num_samples', tryon({ num_samples: 5 })],
    ['inputs.num_samples', tryon({ num_samples: 1.5 })],
    ['inputs.segmentation_free', tryon({ segmentation_free: 'yes' })],
    ['inputs.seed', tryon({ seed: -1 })],
    ['inputs.seed', tryon({ seed: 2 ** 32 })],
    ['inputs.output_format', tryon({ output_format: 'gif' })],
    ['inputs.return_base64', tryon({ return_base64: 1 })],
    ['inputs.num_sample', tryon({ num_sample: 2 })],
    ['inputs.aspect_ratio', image({ product_image: IMG, aspect_ratio: '7:5' }, 'product-to-model')],
    ['inputs.resolution', image({ product_image: IMG, resolution: '8k' }, 'product-to-model')],
    ['inputs.aspect_ratio', image({ face_image: IMG, aspect_ratio: '16:9' }, 'face-to-model')],
    ['inputs.reference_type', image({ prompt: 'p', reference_type: 'shape' }, 'model-create')],
    ['inputs.lora_url', image({ prompt: 'p', lora_url: 'https://example.com/w.bin' }, 'model-create')],
    ['inputs.lora_url', image({ prompt: 'p', lora_url: 'http://127.0.0.1/w.safetensors' }, 'model-create')],
    ['inputs.num_images', image({ prompt: 'p', num_images: 5 }, 'model-create')],
    ['inputs.variation_strength', image({ model_image: IMG, variation_strength: 'wild' }, 'model-variation')],
    ['inputs.background_change', image({ model_image: IMG, background_change: 'no' }, 'model-swap')],
    ['inputs.mode', image({ image: IMG, mode: 'zoom' }, 'reframe')],
    ['inputs.target_aspect_ratio', image({ image: IMG, target_aspect_ratio: '2:1' }, 'reframe')],
    ['inputs.target_direction', image({ image: IMG, target_direction: 'left' }, 'reframe')],
    [
      'inputs.disable_prompt_enhancement',
      image({ image: IMG, prompt: 'p', disable_prompt_enhancement: 0 }, 'background-change'),
    ],
    ['inputs.seed', image({ image: IMG, seed: 1 })],
    ['inputs.duration', image({ image: IMG, duration: 7 }, 'image-to-video')],
    ['inputs.resolution', image({ image: IMG, resolution: '4k' }, 'image-to-video')],
    ['inputs.prompt', image({ prompt: 'x'.repeat(2001) }, 'model-create')],
    ['inputs.image', image({ image: 'ftp://images.example.com/a.jpg' })],
    ['inputs.image', image({ image: 'http://169.254.169.254/latest/meta-data/' })],
    ['inputs.image', image({ image: 'https://localhost/a.jpg' })],
    ['inputs.image', image({ image: 'https://10.0.0.8/a.jpg' })],
    ['inputs.image', image({ image: 'https://user:pw@images.example.com/a.jpg' })],
    ['inputs.image', image({ image: 'data:image/png;base64,%%%' })],
    ['inputs.image', image({ image: 'data:text/plain;base64,QUJD' })],
    ['inputs.image', image({ image: '' })],
  ])('%s: %j', async (field, body) => {
    const before = await runs();
    const answer = await run(body, await freshKey());
    expect([answer.status, answer.body.error.code, answer.body.error.field]).toEqual([400, 'BAD_REQUEST', field]);
    expect(answer.body.error.message.startsWith(field)).toBe(true);
    expect(answer.body.meta.requestId).toMatch(UUID);
    expect(await runs()).toBe(before);
  });
});

test('property: no body, to run or subscribe, yields a 5xx', async () => {
  const apiKey = await freshKey();
  // A prediction that ends at its first look: a stream lasts one look, not a walk at one look per
  // poll lease (what is under test is the answer's status).
  const endsAtOnce = `${IMG}?x=[sim:polls=0]`;
  const valid = fc.record({
    model_name: fc.constant('reframe'),
    inputs: fc.record(
      {
        image: fc.constant(endsAtOnce),
        num_images: fc.integer({ min: 1, max: 4 }),
        output_format: fc.constantFrom('png', 'jpeg'),
      },
      { requiredKeys: ['image'] },
    ),
  });
  const inputs = fc.record(
    {
      image: fc.oneof(fc.constant(endsAtOnce), fc.string({ maxLength: 20 })),
      num_images: fc.integer({ min: -1, max: 6 }),
      seed: fc.oneof(fc.integer(), fc.double()),
      output_format: fc.constantFrom('png', 'jpeg', 'gif'),
      x: fc.jsonValue(),
    },
    { requiredKeys: ['image'] },
  );
  const nearValid = fc.record({ model_name: fc.constantFrom('reframe', 'tryon-v1.6', 'nope'), inputs });
  let refusedOnly = true;
  await fc.assert(
    fc.asyncProperty(fc.oneof(valid, nearValid, fc.jsonValue()), fc.boolean(), async (body, subscribe) => {
      const path = subscribe ? '/api/v1/fashion/subscribe' : '/api/v1/fashion/run';
      const answer = await call(local.gateway.url(path), {
        headers: bearer(apiKey),
        body: body === undefined ? null : body,
      });
      if (answer.status === 429) return;
      if (answer.status === 200) refusedOnly = false;
      expect(answer.status).toBeLessThan(500);
    }),
    { numRuns: 50 },
  );
  expect(refusedOnly).toBe(false);
});
