import { fashionPrediction, predictionFromRecord, submitFashionJob, type FashionPrediction } from './fashion-jobs.js';
import type { GatewayConfiguration } from '../config/configuration.js';
import type { JobEventView } from '../jobs/notify-step.js';
import type { FashionStreamEvent } from './subscribe-events.js';
import { deploymentFashionWatchDeps, watchFashionJob } from './fashion-watch.js';
import { deploymentMediaJobDeps, taskMediaJobDeps } from '../jobs/media-job-deps.js';
import type { FashionRequestBody } from './fashion-schema.js';
import { accountOf, budgetsOf, type AccountCall } from '../http/call.js';
import { envelope, sse, type Reply, type SseFrame } from '../http/reply.js';

/**
 * The fashion routes (docs/interface.md §4.10): run submits a prediction, status reads it, subscribe submits
 * and streams it (docs/interface.md §6.3). The per-key limits and `meta` come from the manifest (rate-limit
 * middleware, response writer), and so does every failure's answer: this file only translates
 * the call into the core's terms and its results into bodies.
 */
export async function answerFashionRun(call: AccountCall<FashionRequestBody>): Promise<Reply> {
  const { prediction, replayed } = await submit(call);
  return envelope(fashionRunData(prediction), 200, replayedHeader(replayed));
}

export async function answerFashionStatus(call: AccountCall): Promise<Reply> {
  const id = call.req.pathParams['id'] ?? '';
  const prediction = await fashionPrediction(
    accountOf(call).accountId,
    id,
    call.signal,
    deploymentMediaJobDeps(call.config),
  );
  return envelope(fashionStatusData(prediction));
}

/**
 * Submits, then streams: a refused submission, or a replay of a prediction that has its cap of
 * watching streams, is an ordinary JSON error (nothing has been streamed yet); once the stream
 * starts every outcome is a frame.
 */
export async function answerFashionSubscribe(call: AccountCall<FashionRequestBody>): Promise<Reply> {
  const { prediction, replayed, job } = await submit(call);
  const { accountId } = accountOf(call);
  const events = await watchFashionJob(
    accountId,
    prediction.predictionId,
    call.signal,
    deploymentFashionWatchDeps(call.config),
    {
      job,
    },
  );
  return sse(fashionFrames(events), replayedHeader(replayed));
}

/** Says so when an earlier request with the same Idempotency-Key made the prediction. */
const replayedHeader = (replayed: boolean) => (replayed ? { 'Idempotency-Replayed': 'true' } : undefined);

function submit(call: AccountCall<FashionRequestBody>) {
  return submitFashionJob(
    {
      body: call.body,
      owner: { ...accountOf(call), requestId: call.requestId, route: call.route.id, budgets: budgetsOf(call) },
      idempotencyKey: call.req.headers['idempotency-key'],
      signal: call.signal,
    },
    deploymentMediaJobDeps(call.config),
  );
}

/** The `data` of fashion responses (docs/interface.md §2.12 and §4.10), snake_case as callers read them. */

/** Run's answer: the new prediction, `starting`. */
export function fashionRunData(prediction: FashionPrediction) {
  return {
    prediction_id: prediction.predictionId,
    status: prediction.status,
    model_name: prediction.modelName,
    created_at: prediction.createdAt,
  };
}

/**
 * Status's answer: the four fields of docs/interface.md §4.10 plus the rest of §2.12's
 * prediction. A failed prediction is `status: 'failed'` with its error, inside `success: true`.
 */
export function fashionStatusData(prediction: FashionPrediction) {
  return { ...fashionEventData(prediction), webhook: prediction.webhook };
}

/** What a fashion event's `data` holds (docs/interface.md §6.4): the status answer but its `webhook`, which the event itself settles. */
function fashionEventData(prediction: FashionPrediction) {
  return { ...fashionRunData(prediction), output: prediction.output, error: prediction.error };
}

/** Fashion jobs' webhook events, `fashion.completed` and `fashion.failed` (lambdas/jobs/notify-step.ts). */
export function fashionEventView(config: GatewayConfiguration, signal: AbortSignal): JobEventView {
  return {
    type: 'fashion',
    data: async (job) => fashionEventData(await predictionFromRecord(job, signal, taskMediaJobDeps(config))),
  };
}

/** The public path a caller polls once a subscribe stream has run its 2 minutes. */
export const fashionStatusPath = (predictionId: string) => `/api/v1/fashion/status/${encodeURIComponent(predictionId)}`;

/**
 * docs/interface.md §6.3: each event as `event: fashion` + JSON, then `data: [DONE]` (under the same event
 * name, so an EventSource listening for `fashion` sees the end too).
 */
export async function* fashionFrames(events: AsyncIterable<FashionStreamEvent>): AsyncGenerator<SseFrame> {
  for await (const event of events) {
    yield {
      event: 'fashion',
      data: event.type === 'still_running' ? { ...event, status_url: fashionStatusPath(event.prediction_id) } : event,
    };
  }
  yield { event: 'fashion', data: '[DONE]' };
}
