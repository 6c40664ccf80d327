import { settledUsage } from './support/settled-usage.js';
import { bearer, call } from './support/http.js';
import { SimulatorControl } from './support/simulators.js';
import { MAX_WATCHERS_PER_JOB } from '../../lambdas/jobs/job-watchers.js';
import { POLL_LEASE_MS } from '../../lambdas/jobs/poll-lease.js';
import { RawHttpConnection, type RawResponse } from '../support/raw-http.js';
import { useGateway } from './support/gateway-fixture.js';

/**
 * POST /api/v1/fashion/subscribe over HTTP (docs/interface.md §6.3), read byte for byte. The FASHN fake
 * moves a prediction one status per poll, so here the job poller waits a minute between polls:
 * the stream alone walks the prediction, and the events it sees are exactly the fake's walk.
 */
const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'WARN', GATEWAY_JOB_WAIT_MS: '60000' },
  account: 'subscribe',
  key: { via: 'dashboard' },
});

const IMG = 'https://images.example.com/model.jpg';

async function subscribe(body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  const connection = await RawHttpConnection.open(local.gateway.info.baseUrl);
  try {
    return await connection.request(
      'POST',
      '/api/v1/fashion/subscribe',
      { ...bearer(local.key), 'Content-Type': 'application/json', ...headers },
      JSON.stringify(body),
    );
  } finally {
    await connection.close();
  }
}

/** Every frame is `event: fashion` and one `data:` line; the last is `[DONE]`. */
function eventsOf(response: RawResponse): any[] {
  return eventsIn(response.body.toString('utf8'));
}

function eventsIn(text: string): any[] {
  expect(text.endsWith('event: fashion\ndata: [DONE]\n\n')).toBe(true);
  const frames = text.split('\n\n').filter((frame) => frame !== '' && !frame.startsWith(':'));
  for (const frame of frames) expect(frame).toMatch(/^event: fashion\ndata: [^\n]+$/);
  return frames.slice(0, -1).map((frame) => JSON.parse(frame.slice('event: fashion\ndata: '.length)));
}

test('status updates as the prediction walks, then completed with its outputs, then [DONE]; metered once', async () => {
  const response = await subscribe({
    model_name: 'reframe',
    inputs: { image: `${IMG}?x=[sim:polls=3]`, num_images: 2 },
  });
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
  expect(response.headers['transfer-encoding']).toBe('chunked');
  expect(response.headers['x-ratelimit-limit']).toBe('30');
  const events = eventsOf(response);
  const id = events[0].prediction_id as string;
  expect(events).toEqual([
    { type: 'job_submitted', prediction_id: id, model_name: 'reframe' },
    { type: 'status_update', prediction_id: id, status: 'in_queue' },
    { type: 'status_update', prediction_id: id, status: 'processing' },
    {
      type: 'completed',
      prediction_id: id,
      status: 'completed',
      output: [expect.stringMatching(/\/cdn\//), expect.stringMatching(/\/cdn\//)],
      error: null,
    },
  ]);
  // The stream settled the job: status says completed at once, and usage counts it once.
  const status = await call(local.gateway.url(`/api/v1/fashion/status/${id}`), { headers: bearer(local.key) });
  expect(status.body.data).toMatchObject({ status: 'completed', output: events[3].output });
  const usage = await settledUsage(local.gateway.url('/api/v1/usage'), bearer(local.key), 1);
  expect(usage.body.data.byRoute['fashion-subscribe']).toMatchObject({ requests: 1, units: { credits: 4 } });
});

test('a failed prediction ends the stream with a failed event naming the error', async () => {
  const events = eventsOf(
    await subscribe({
      model_name: 'background-remove',
      inputs: { image: `${IMG}?x=[sim:fail=PipelineError][sim:polls=1]` },
    }),
  );
  expect(events.map((event) => event.type)).toEqual(['job_submitted', 'failed']);
  expect(events[1]).toMatchObject({ status: 'failed', output: null, error: { name: 'PipelineError' } });
});

test('the same Idempotency-Key resumes the same prediction: an ended one is told at once', async () => {
  const body = { model_name: 'model-create', inputs: { prompt: 'a coat [sim:polls=1]' } };
  const idem = { 'Idempotency-Key': `sub-${Date.now()}` };
  const first = eventsOf(await subscribe(body, idem));
  const again = await subscribe(body, idem);
  expect(again.headers['idempotency-replayed']).toBe('true');
  const replayed = eventsOf(again);
  expect(replayed.map((event) => event.type)).toEqual(['job_submitted', 'completed']);
  expect(replayed[1]).toEqual(first.at(-1));
});

test('a refused body is a JSON 400 with meta, not a stream', async () => {
  const response = await subscribe({ model_name: 'reframe', inputs: {} });
  expect(response.status).toBe(400);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  const body = JSON.parse(response.body.toString('utf8'));
  expect(body).toMatchObject({
    success: false,
    error: { field: 'inputs.image' },
    meta: { requestId: expect.any(String) },
  });
});

test('streams replaying one Idempotency-Key watch one prediction: FASHN is asked once per lease, and the one past the cap is refused', async () => {
  const fashn = SimulatorControl.of(local.gateway, 'fashn');
  await fashn.reset();
  const body = JSON.stringify({ model_name: 'model-create', inputs: { prompt: 'a wool coat [sim:polls=6]' } });
  const headers = {
    ...bearer(local.key),
    'Content-Type': 'application/json',
    'Idempotency-Key': `watchers-${Date.now()}`,
  };
  const open = () => fetch(local.gateway.url('/api/v1/fashion/subscribe'), { method: 'POST', headers, body });
  const usageBefore = await subscribeUsage();
  const started = performance.now();
  // Its headers come once the prediction exists and this stream holds its slot.
  const first = await open();
  const replays = await Promise.all(Array.from({ length: MAX_WATCHERS_PER_JOB - 1 }, open));
  expect([first, ...replays].map((response) => response.status)).toEqual(Array(MAX_WATCHERS_PER_JOB).fill(200));
  expect(replays.map((response) => response.headers.get('idempotency-replayed'))).toEqual(
    Array(MAX_WATCHERS_PER_JOB - 1).fill('true'),
  );

  const refused = await open();
  expect(refused.status).toBe(429);
  const retryAfter = Number(refused.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(150);
  expect(await refused.json()).toMatchObject({
    success: false,
    error: {
      code: 'RATE_LIMIT_EXCEEDED',
      message: `At most ${MAX_WATCHERS_PER_JOB} streams may watch one prediction at once (poll its status instead); retry after ${retryAfter} s`,
    },
  });

  const streams = (await Promise.all([first, ...replays].map((response) => response.text()))).map(eventsIn);
  const elapsedMs = performance.now() - started;
  const id = streams[0]![0].prediction_id as string;
  for (const events of streams) {
    expect(events[0]).toEqual({ type: 'job_submitted', prediction_id: id, model_name: 'model-create' });
    expect(events.at(-1)).toEqual(streams[0]!.at(-1));
  }
  expect(streams[0]!.at(-1)).toMatchObject({ type: 'completed', output: [expect.stringMatching(/\/cdn\//)] });

  // FASHN walks the prediction over 7 status calls, whoever makes them: here no more than one
  // per lease over the streams' whole time (ten streams alone each polling would make ten).
  const statusCalls = (await fashn.requests()).filter((request) => request.path.startsWith('/v1/status/'));
  const perPrediction = new Map<string, number>();
  for (const { path } of statusCalls) perPrediction.set(path, (perPrediction.get(path) ?? 0) + 1);
  const calls = Math.max(...perPrediction.values());
  expect(calls).toBe(7);
  expect(calls).toBeLessThanOrEqual(elapsedMs / POLL_LEASE_MS + 2);

  // The streams gave their slots back; the prediction has ended, so a replay is told at once.
  const after = eventsIn(await (await open()).text());
  expect(after.map((event) => event.type)).toEqual(['job_submitted', 'completed']);
  // Metered once, however many watched its end.
  expect(await subscribeUsage(usageBefore.requests + 1)).toEqual({
    requests: usageBefore.requests + 1,
    credits: usageBefore.credits + 3,
  });
}, 60_000);

/** The subscribe route's usage once it counts `atLeast` requests (totals trail the ledger; 600 reads at most). */
async function subscribeUsage(atLeast = 0): Promise<{ requests: number; credits: number }> {
  for (let poll = 1; ; poll++) {
    const usage = await call(local.gateway.url('/api/v1/usage'), { headers: bearer(local.key) });
    const route = usage.body.data.byRoute['fashion-subscribe'];
    const counted = { requests: route?.requests ?? 0, credits: route?.units?.credits ?? 0 };
    if (counted.requests >= atLeast || poll >= 600) return counted;
    await new Promise((done) => setTimeout(done, 50));
  }
}
