import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';
import { createFashnSimulator } from '../../../local/simulators/fashn.js';
import { ABANDONED_AFTER_MS } from '../../../local/simulators/fashn-predictions.js';

/**
 * The FASHN fake against docs/upstreams.md §7 and its checklist: auth, run validation, status walks
 * over polls, each runtime error, the three 429s told apart by `error`, a real concurrency cap,
 * credits on terminal statuses, and output expiry on a controllable clock.
 */
let sim: RunningSimulator;
let clock = 1_700_000_000_000;

beforeEach(async () => {
  clock = 1_700_000_000_000;
  sim = await startSimulator(createFashnSimulator({ now: () => clock, concurrency: 2 }));
});
afterEach(() => sim.close());

const KEY = { authorization: 'Bearer sim-local-key' };
const URL_A = 'https://images.example.com/model.jpg';
const URL_B = 'https://images.example.com/garment.jpg';

async function run(body: unknown, query = '', headers: Record<string, string> = KEY) {
  const response = await fetch(`${sim.url}/v1/run${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function poll(id: string) {
  const response = await fetch(`${sim.url}/v1/status/${id}`, { headers: KEY });
  return {
    status: response.status,
    credits: response.headers.get('x-fashn-credits-used'),
    body: (await response.json()) as { status?: string; output?: string[] | null; error?: unknown },
  };
}

const tryon = (extra: Record<string, unknown> = {}) => ({
  model_name: 'tryon-v1.6',
  inputs: { model_image: URL_A, garment_image: URL_B, ...extra },
});

async function walk(id: string) {
  const seen: string[] = [];
  for (let i = 0; i < 20; i++) {
    const { body } = await poll(id);
    seen.push(body.status!);
    if (body.status === 'completed' || body.status === 'failed') break;
  }
  return seen;
}

const inject = (fault: string) => fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault }) });

test('a missing or bad key is the 401 UnauthorizedAccess body', async () => {
  for (const headers of [{}, { authorization: 'Bearer bad-key' }] as Record<string, string>[]) {
    expect(await run(tryon(), '', headers)).toEqual({
      status: 401,
      body: { error: 'UnauthorizedAccess', message: 'Unauthorized: Invalid token' },
    });
  }
});

test('run answers {id, error:null}; the status walks starting → in_queue → processing → completed', async () => {
  const { status, body } = await run(tryon());
  expect(status).toBe(200);
  expect(sim.requests).toHaveLength(1);
  expect(body).toEqual({ id: expect.any(String), error: null });
  expect(await walk(body['id'] as string)).toEqual(['starting', 'in_queue', 'processing', 'completed']);
});

test('[sim:polls=N] sets the number of polls before the end', async () => {
  const quick = await run({ model_name: 'model-create', inputs: { prompt: 'a model [sim:polls=0]' } });
  expect(await walk(quick.body['id'] as string)).toEqual(['completed']);
  const slow = await run({ model_name: 'model-create', inputs: { prompt: 'a model [sim:polls=6]' } });
  expect(await walk(slow.body['id'] as string)).toEqual([
    'starting',
    'starting',
    'in_queue',
    'in_queue',
    'processing',
    'processing',
    'completed',
  ]);
});

test('run refuses an unknown model or a missing required input with 400 BadRequest', async () => {
  const unknown = await run({ model_name: 'tryon-v9', inputs: {} });
  expect(unknown.status).toBe(400);
  expect(unknown.body['error']).toBe('BadRequest');
  const missing = await run({ model_name: 'background-change', inputs: { image: URL_A } });
  expect(missing).toEqual({ status: 400, body: { error: 'BadRequest', message: 'inputs.prompt is required' } });
  expect((await run({ model_name: 'reframe' })).status).toBe(400);
});

test('webhook_url is read from the query string', async () => {
  await run(tryon(), `?webhook_url=${encodeURIComponent('https://hooks.example.com/f')}`);
  const [request] = sim.requests;
  expect(request!.query).toEqual({ webhook_url: 'https://hooks.example.com/f' });
});

test('outputs: one per num_samples, served by the fake, PNG bytes; x-fashn-credits-used on the end only', async () => {
  const { body } = await run(tryon({ num_samples: 3, prompt: undefined }));
  const id = body['id'] as string;
  const first = await poll(id);
  expect(first.credits).toBeNull();
  expect(first.body.output).toBeNull();
  await walk(id);
  const done = await poll(id);
  expect(done.credits).toBe('9');
  expect(done.body.output).toHaveLength(3);
  const file = await fetch(done.body.output![2]!);
  expect(file.status).toBe(200);
  expect(file.headers.get('content-type')).toBe('image/png');
  expect([...new Uint8Array(await file.arrayBuffer()).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
});

test('a face reference costs 5 credits per image; num_images multiplies; video outputs are MP4', async () => {
  const face = await run({
    model_name: 'model-swap',
    inputs: { model_image: URL_A, face_reference: URL_B, num_images: 2, prompt: '[sim:polls=0]' },
  });
  const swapped = await poll(face.body['id'] as string);
  expect(swapped.credits).toBe('10');
  const video = await run({ model_name: 'image-to-video', inputs: { image: URL_A, prompt: '[sim:polls=0]' } });
  const clip = await poll(video.body['id'] as string);
  expect(clip.credits).toBe('5');
  expect(clip.body.output![0]).toMatch(/\.mp4$/);
  expect((await fetch(clip.body.output![0]!)).headers.get('content-type')).toBe('video/mp4');
});

test('return_base64 gives data: URLs; [sim:credits=none] leaves the credits header out', async () => {
  const { body } = await run({
    model_name: 'background-remove',
    inputs: { image: `${URL_A}#[sim:polls=0][sim:credits=none]`, return_base64: true },
  });
  const done = await poll(body['id'] as string);
  expect(done.body.output![0]).toMatch(/^data:image\/png;base64,iVBOR/);
  expect(done.credits).toBeNull();
});

test.each([
  'ImageLoadError',
  'ContentModerationError',
  'PoseError',
  'LoRALoadError',
  'InputValidationError',
  'PipelineError',
  'ThirdPartyError',
  '3rdPartyProviderError',
  'InternalServerError',
])('[sim:fail=%s] fails the prediction with that error, costing 0 credits', async (name) => {
  const { body } = await run({ model_name: 'model-create', inputs: { prompt: `x [sim:fail=${name}]` } });
  const id = body['id'] as string;
  expect((await walk(id)).at(-1)).toBe('failed');
  const ended = await poll(id);
  expect(ended.body).toEqual({ id, status: 'failed', output: null, error: { name, message: expect.any(String) } });
  expect(ended.credits).toBe('0');
});

test('an image in base64 without its data: prefix fails with ImageLoadError', async () => {
  const bare = Buffer.alloc(96, 7).toString('base64');
  const { body } = await run({ model_name: 'tryon-v1.6', inputs: { model_image: URL_A, garment_image: bare } });
  expect(body['error']).toBeNull();
  await walk(body['id'] as string);
  const ended = await poll(body['id'] as string);
  expect(ended.body.error).toEqual({ name: 'ImageLoadError', message: expect.stringContaining('data: prefix') });
  const prefixed = await run(tryon({ garment_image: `data:image/png;base64,${bare}`, prompt: undefined }));
  expect((await walk(prefixed.body['id'] as string)).at(-1)).toBe('completed');
});

test('[sim:end=canceled] ends in the SDK-only status', async () => {
  const { body } = await run({ model_name: 'model-create', inputs: { prompt: '[sim:polls=0][sim:end=canceled]' } });
  expect((await poll(body['id'] as string)).body.status).toBe('canceled');
});

test('an unknown id is 404 NotFound', async () => {
  const { status, body } = await poll('no-such-id');
  expect(status).toBe(404);
  expect(body).toMatchObject({ error: 'NotFound' });
});

test('the 429s differ only by error: RateLimitExceeded, ConcurrencyLimitExceeded, OutOfCredits; 500 InternalServerError', async () => {
  for (const name of ['RateLimitExceeded', 'ConcurrencyLimitExceeded', 'OutOfCredits']) {
    expect((await inject(`error:${name}`)).status).toBe(201);
    const refused = await run(tryon());
    expect(refused.status).toBe(429);
    expect(refused.body['error']).toBe(name);
  }
  await inject('error:InternalServerError');
  expect((await run(tryon())).status).toBe(500);
  await inject('status:429');
  expect((await run(tryon())).body['error']).toBe('RateLimitExceeded');
});

test('the concurrency cap is real: a third in-flight prediction is refused until one ends or is abandoned', async () => {
  const first = await run(tryon({ prompt: undefined, category: 'tops' }));
  await run(tryon());
  const third = await run(tryon());
  expect(third).toEqual({ status: 429, body: { error: 'ConcurrencyLimitExceeded', message: expect.any(String) } });
  await walk(first.body['id'] as string);
  expect((await run(tryon())).status).toBe(200);
  expect((await run(tryon())).status).toBe(429);
  clock += ABANDONED_AFTER_MS;
  expect((await run(tryon())).status).toBe(200);
});

test('outputs expire: CDN URLs after 72 h, base64 results after 60 minutes', async () => {
  const cdn = await run(tryon({ model_image: `${URL_A}?[sim:polls=0]` }));
  const cdnId = cdn.body['id'] as string;
  const url = (await poll(cdnId)).body.output![0]!;
  const b64 = await run({
    model_name: 'background-remove',
    inputs: { image: `${URL_A}?[sim:polls=0]`, return_base64: true },
  });
  const b64Id = b64.body['id'] as string;
  await poll(b64Id);
  clock += 60 * 60_000 - 1;
  expect((await poll(b64Id)).status).toBe(200);
  clock += 1;
  expect((await poll(b64Id)).status).toBe(404);
  expect((await fetch(url)).status).toBe(200);
  clock += 71 * 3600_000;
  expect((await fetch(url)).status).toBe(404);
  expect((await poll(cdnId)).status).toBe(404);
});

test('over the run QPS limit the answer is 429 RateLimitExceeded; the control API can lift it', async () => {
  await fetch(`${sim.url}/__sim/limits`, { method: 'POST', body: JSON.stringify({ qps: 1, route: 'run' }) });
  const models = [{ model_name: 'model-create', inputs: { prompt: 'p' } }];
  expect((await run(models[0])).status).toBe(200);
  expect(await run(models[0])).toEqual({
    status: 429,
    body: { error: 'RateLimitExceeded', message: expect.any(String) },
  });
  await fetch(`${sim.url}/__sim/limits`, { method: 'POST', body: JSON.stringify({ qps: null }) });
  expect((await run(models[0])).status).toBe(200);
});
