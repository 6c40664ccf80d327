import { FashionError } from '../../../lambdas/fashion/fashion-errors.js';
import {
  subscribeEvents,
  SUBSCRIBE_MAX_MS,
  type FashionStreamEvent,
} from '../../../lambdas/fashion/subscribe-events.js';
import type { PredictionStatus } from '../../../lambdas/fashion/fashn-wire.js';
import { fashionFrames } from '../../../lambdas/fashion/fashion-call.js';

/** The subscribe stream's events (docs/interface.md §6.3) over a scripted upstream, on a fake clock. */
const ID = 'pred-1';
const running = (status: PredictionStatus['status']): PredictionStatus => ({
  id: ID,
  status,
  output: null,
  error: null,
});

/** A fake clock whose sleep advances it; each poll takes `pollMs` of it. */
function harness(answers: (PredictionStatus | Error)[], pollMs = 0) {
  let now = 0;
  const sleeps: number[] = [];
  const ended: PredictionStatus[] = [];
  let polls = 0;
  const deps = {
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    poll: async () => {
      now += pollMs;
      const answer = answers[Math.min(polls++, answers.length - 1)]!;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    onTerminal: (status: PredictionStatus) => void ended.push(status),
  };
  return { deps, sleeps, ended, polls: () => polls, elapsed: () => now };
}

async function collect(events: AsyncIterable<FashionStreamEvent>) {
  const seen: FashionStreamEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

const prediction = { predictionId: ID, modelName: 'tryon-v1.6' };

test('job_submitted, a status_update per change, then completed with the outputs', async () => {
  const done: PredictionStatus = {
    id: ID,
    status: 'completed',
    output: ['https://cdn/x.png'],
    error: null,
    creditsUsed: 3,
  };
  const h = harness([running('starting'), running('in_queue'), running('in_queue'), running('processing'), done]);
  expect(await collect(subscribeEvents(prediction, h.deps))).toEqual([
    { type: 'job_submitted', prediction_id: ID, model_name: 'tryon-v1.6' },
    { type: 'status_update', prediction_id: ID, status: 'in_queue' },
    { type: 'status_update', prediction_id: ID, status: 'processing' },
    { type: 'completed', prediction_id: ID, status: 'completed', output: ['https://cdn/x.png'], error: null },
  ]);
  expect(h.ended).toEqual([done]);
  expect(h.sleeps).toEqual([1500, 1500, 1500, 1500]);
});

test('a failed prediction ends with failed and its error object', async () => {
  const error = { name: 'PoseError', message: 'no pose' };
  const h = harness([running('processing'), { id: ID, status: 'failed', output: null, error, creditsUsed: 0 }]);
  const events = await collect(subscribeEvents(prediction, h.deps));
  expect(events.at(-1)).toEqual({ type: 'failed', prediction_id: ID, status: 'failed', output: null, error });
  expect(h.ended).toHaveLength(1);
});

test('an unexpected polling failure ends with error (no internals in the message)', async () => {
  const h = harness([running('in_queue'), new TypeError('socket exploded at 0xdeadbeef')]);
  const events = await collect(subscribeEvents(prediction, h.deps));
  expect(events.at(-1)).toEqual({ type: 'error', prediction_id: ID, message: 'polling failed unexpectedly' });
  expect(h.ended).toEqual([]);
});

test('a refused key ends at once; transient failures are polled through, up to twice in a row', async () => {
  const auth = harness([new FashionError('upstream_auth', 'FASHN UnauthorizedAccess: no')]);
  expect((await collect(subscribeEvents(prediction, auth.deps))).at(-1)).toMatchObject({ type: 'error' });
  expect(auth.polls()).toBe(1);
  const busy = new FashionError('rate_limited', 'FASHN RateLimitExceeded: slow down');
  const through = harness([running('in_queue'), busy, busy, running('completed')]);
  expect((await collect(subscribeEvents(prediction, through.deps))).at(-1)).toMatchObject({ type: 'completed' });
  const stuck = harness([running('in_queue'), busy, busy, busy, running('completed')]);
  const events = await collect(subscribeEvents(prediction, stuck.deps));
  expect(events.at(-1)).toEqual({
    type: 'error',
    prediction_id: ID,
    message: 'polling failed: FASHN RateLimitExceeded: slow down',
  });
});

test('after 2 minutes the stream ends telling the caller to poll status; it never sleeps past the deadline', async () => {
  const h = harness([running('processing')], 250);
  const events = await collect(subscribeEvents(prediction, h.deps));
  expect(events.at(-1)).toEqual({
    type: 'still_running',
    prediction_id: ID,
    status: 'processing',
    message: 'prediction still processing after 120 s: poll the status endpoint for it',
  });
  expect(events.filter((e) => e.type === 'status_update')).toHaveLength(1);
  expect(h.elapsed()).toBeGreaterThanOrEqual(SUBSCRIBE_MAX_MS);
  expect(h.elapsed()).toBeLessThanOrEqual(SUBSCRIBE_MAX_MS + 250);
  expect(h.ended).toEqual([]);
});

test('frames: event fashion with the JSON, the poll path on still_running, then [DONE]', async () => {
  const h = harness([running('processing')]);
  const frames = [];
  for await (const frame of fashionFrames(subscribeEvents(prediction, h.deps, { maxMs: 3_000 }))) frames.push(frame);
  expect(frames[0]).toEqual({
    event: 'fashion',
    data: { type: 'job_submitted', prediction_id: ID, model_name: 'tryon-v1.6' },
  });
  expect(frames.at(-2)).toMatchObject({
    event: 'fashion',
    data: { type: 'still_running', status_url: '/api/v1/fashion/status/pred-1' },
  });
  expect(frames.at(-1)).toEqual({ event: 'fashion', data: '[DONE]' });
});
