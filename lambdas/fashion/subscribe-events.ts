import { FashionError } from './fashion-errors.js';
import type { PredictionError, PredictionState, PredictionStatus } from './fashn-wire.js';

/**
 * The subscribe stream's events (docs/interface.md §6.3), as an async generator over a submitted prediction:
 * `job_submitted`, a `status_update` for each status change seen, then `completed` or
 * `failed`; `error` when polling fails unexpectedly; and after at most `maxMs` (2 minutes,
 * docs/interface.md §8) a final `still_running` event telling the caller to poll the status endpoint
 * instead. Time and polling are dependencies, so the whole walk runs on a fake clock in tests.
 */

export type FashionStreamEvent =
  | { readonly type: 'job_submitted'; readonly prediction_id: string; readonly model_name: string }
  | { readonly type: 'status_update'; readonly prediction_id: string; readonly status: PredictionState }
  | {
      readonly type: 'completed';
      readonly prediction_id: string;
      readonly status: 'completed';
      readonly output: readonly string[];
      readonly error: null;
    }
  | {
      readonly type: 'failed';
      readonly prediction_id: string;
      readonly status: 'failed';
      readonly output: null;
      readonly error: PredictionError;
    }
  | { readonly type: 'error'; readonly prediction_id: string; readonly message: string }
  | {
      readonly type: 'still_running';
      readonly prediction_id: string;
      readonly status: PredictionState;
      readonly message: string;
    };

export interface SubscribeDeps {
  readonly poll: (predictionId: string) => Promise<PredictionStatus>;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Called with the terminal status, and awaited, before its event goes out (the job is settled from it). */
  readonly onTerminal?: (status: PredictionStatus) => void | Promise<void>;
}

export interface SubscribeOptions {
  readonly maxMs?: number;
  readonly intervalMs?: number;
  /** Consecutive transient polling failures tolerated before the `error` event. */
  readonly transientTries?: number;
}

/** docs/interface.md §8: a subscribe stream lasts at most 2 minutes. */
export const SUBSCRIBE_MAX_MS = 120_000;
/** Well inside the upstream's status limit (about 50 per 10 s per account, docs/upstreams.md §7.7). */
export const SUBSCRIBE_POLL_INTERVAL_MS = 1_500;

/** Throttling and upstream hiccups are worth another poll; a refused key or unknown id is not. */
const TRANSIENT = new Set(['rate_limited', 'concurrency_limited', 'upstream_failed']);

export async function* subscribeEvents(
  prediction: { readonly predictionId: string; readonly modelName: string },
  deps: SubscribeDeps,
  options: SubscribeOptions = {},
): AsyncGenerator<FashionStreamEvent> {
  const { predictionId: id, modelName } = prediction;
  const maxMs = options.maxMs ?? SUBSCRIBE_MAX_MS;
  const interval = options.intervalMs ?? SUBSCRIBE_POLL_INTERVAL_MS;
  const deadline = deps.now() + maxMs;
  yield { type: 'job_submitted', prediction_id: id, model_name: modelName };
  let last: PredictionState = 'starting';
  let failures = 0;
  for (;;) {
    let status: PredictionStatus;
    try {
      status = await deps.poll(id);
      failures = 0;
    } catch (error) {
      failures++;
      if (!isTransient(error) || failures > (options.transientTries ?? 2)) {
        yield { type: 'error', prediction_id: id, message: pollingFailure(error) };
        return;
      }
      status = { id, status: last, output: null, error: null };
    }
    if (status.status === 'completed' || status.status === 'failed') {
      await deps.onTerminal?.(status);
      yield terminalEvent(id, status);
      return;
    }
    if (status.status !== last) {
      last = status.status;
      yield { type: 'status_update', prediction_id: id, status: last };
    }
    const left = deadline - deps.now();
    if (left <= 0) {
      yield {
        type: 'still_running',
        prediction_id: id,
        status: last,
        message: `prediction still ${last} after ${Math.round(maxMs / 1000)} s: poll the status endpoint for it`,
      };
      return;
    }
    await deps.sleep(Math.min(interval, left));
  }
}

/** The event of an ended prediction (`completed` or `failed`), from its status or its record. */
export function terminalEvent(
  id: string,
  status: Pick<PredictionStatus, 'status' | 'output' | 'error'>,
): FashionStreamEvent {
  return status.status === 'completed'
    ? { type: 'completed', prediction_id: id, status: 'completed', output: status.output ?? [], error: null }
    : {
        type: 'failed',
        prediction_id: id,
        status: 'failed',
        output: null,
        error: status.error ?? { name: 'PipelineError', message: 'prediction failed' },
      };
}

const isTransient = (error: unknown) => error instanceof FashionError && TRANSIENT.has(error.kind);

/** Only domain errors' messages reach the caller; anything else stays in the logs. */
const pollingFailure = (error: unknown) =>
  error instanceof FashionError ? `polling failed: ${error.message}` : 'polling failed unexpectedly';
