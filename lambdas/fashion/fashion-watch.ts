import type { GatewayConfiguration } from '../config/configuration.js';
import { randomUUID } from 'node:crypto';
import { logger } from '../config/logger.js';
import { FASHION_ERROR_ANSWERS, FashionError } from './fashion-errors.js';
import {
  subscribeEvents,
  SUBSCRIBE_MAX_MS,
  SUBSCRIBE_POLL_INTERVAL_MS,
  terminalEvent,
  type FashionStreamEvent,
  type SubscribeOptions,
} from './subscribe-events.js';
import { predictionStatus, type PredictionStatus } from './fashn-wire.js';
import { fashionProgressOf } from './fashion-job-driver.js';
import { ownedFashionJob, predictionFromRecord } from './fashion-jobs.js';
import { isJobEnd, type JobUnderway } from '../jobs/job-driver.js';
import { JobNotFoundError } from '../jobs/job-lookup.js';
import { isEnded, type JobRecord } from '../jobs/job-record.js';
import { recordProgress, takePollLease } from '../jobs/job-repository.js';
import { POLL_CALL_TIMEOUT_MS } from '../jobs/job-step-deps.js';
import {
  joinWatchers,
  leaveWatchers,
  MAX_WATCHERS_PER_JOB,
  WATCHER_SLOT_GRACE_MS,
  type WatcherAdmission,
  type WatcherSlot,
} from '../jobs/job-watchers.js';
import { deploymentMediaJobDeps, type MediaJobDeps } from '../jobs/media-job-deps.js';
import type { PollLease } from '../jobs/poll-lease.js';
import { settleJob } from '../jobs/settle-job.js';
import { SharedPolls } from '../jobs/shared-polls.js';

/**
 * The subscribe stream's watch of a fashion job (docs/interface.md §6.3). However many streams watch one
 * prediction, FASHN is asked once per interval: each look takes the job's poll lease first
 * (poll-lease.ts), and only its holder calls FASHN and writes what it saw into the record; the
 * others read the record. Within one instance, looks at the same job share one in flight
 * (shared-polls.ts). Each stream holds a watcher slot on the record (job-watchers.ts): past the
 * cap the watch is refused before it starts, a FashionError `too_many_watchers`.
 */

/** What watching needs beyond the jobs core: the lease, the slots, this instance's looks in flight. */
export interface WatchStore {
  readonly takePollLease: (job: JobRecord, lease: PollLease, now?: Date) => Promise<boolean>;
  readonly recordProgress: (job: JobRecord, progress: JobUnderway, now?: Date) => Promise<boolean>;
  readonly joinWatchers: (job: JobRecord, slot: WatcherSlot, now?: Date) => Promise<WatcherAdmission>;
  readonly leaveWatchers: (job: Pick<JobRecord, 'accountId' | 'jobId'>, watcherId: string) => Promise<void>;
  readonly shared: SharedPolls<PredictionStatus>;
}

export interface FashionWatchDeps extends MediaJobDeps {
  readonly watch: WatchStore;
}

const watchDeps = new WeakMap<GatewayConfiguration, FashionWatchDeps>();

/** The deployment's, one per configuration (so per instance): its shared polls serve every watcher here. */
export function deploymentFashionWatchDeps(config: GatewayConfiguration): FashionWatchDeps {
  let deps = watchDeps.get(config);
  if (!deps) {
    deps = {
      ...deploymentMediaJobDeps(config),
      watch: { takePollLease, recordProgress, joinWatchers, leaveWatchers, shared: new SharedPolls() },
    };
    watchDeps.set(config, deps);
  }
  return deps;
}

export interface WatchOptions extends SubscribeOptions {
  readonly sleep?: (ms: number) => Promise<void>;
  /** The prediction's record, when the caller holds it already (SubmittedPrediction.job). */
  readonly job?: JobRecord;
}

/**
 * The caller's own prediction as a stream of events: an ended one at once from its record; an
 * active one looked at every interval until it ends, its end settled as the poller would (usage
 * once, the record ended) before the final event goes out. Throws FashionError
 * `too_many_watchers` (nothing streamed yet) when the prediction has its cap of watchers; any
 * other failure before the stream is its one `error` event, since the prediction exists.
 */
export async function watchFashionJob(
  accountId: string,
  predictionId: string,
  signal: AbortSignal,
  deps: FashionWatchDeps,
  options: WatchOptions = {},
): Promise<AsyncGenerator<FashionStreamEvent>> {
  const watcherId = `watch_${randomUUID()}`;
  let job: JobRecord;
  let admission: WatcherAdmission;
  try {
    job = options.job ?? (await ownedFashionJob(accountId, predictionId, deps));
    const now = deps.now();
    const until = now.getTime() + (options.maxMs ?? SUBSCRIBE_MAX_MS) + WATCHER_SLOT_GRACE_MS;
    admission = isEnded(job.phase) ? { kind: 'ended' } : await deps.watch.joinWatchers(job, { watcherId, until }, now);
  } catch (error) {
    return failedWatch(predictionId, error, signal);
  }
  if (admission.kind === 'full') {
    throw new FashionError('too_many_watchers', `at most ${MAX_WATCHERS_PER_JOB} streams may watch one prediction`, {
      retryAfterMs: Math.max(0, admission.freeAt - deps.now().getTime()),
    });
  }
  return watched(job, { watcherId, joined: admission.kind === 'joined' }, signal, deps, options);
}

async function* watched(
  job: JobRecord,
  watcher: { readonly watcherId: string; readonly joined: boolean },
  signal: AbortSignal,
  deps: FashionWatchDeps,
  options: WatchOptions,
): AsyncGenerator<FashionStreamEvent> {
  try {
    if (isEnded(job.phase)) {
      yield { type: 'job_submitted', prediction_id: job.jobId, model_name: job.model };
      yield terminalEvent(job.jobId, await predictionFromRecord(job, signal, deps));
      return;
    }
    const lease: PollLease = { holder: watcher.watcherId, ms: options.intervalMs ?? SUBSCRIBE_POLL_INTERVAL_MS };
    yield* subscribeEvents(
      { predictionId: job.jobId, modelName: job.model },
      {
        // A caller who has gone stops looking: its stream ends at its next event.
        poll: () => (signal.aborted ? Promise.reject(signal.reason) : look(job, lease, deps)),
        now: () => deps.now().getTime(),
        sleep: options.sleep ?? ((ms) => abortableSleep(ms, signal)),
      },
      options,
    );
  } catch (error) {
    // The stream has begun (status 200 sent): a failure of ours is its last event, not a cut.
    if (signal.aborted) return;
    logger.error('watching a fashion job failed', { jobId: job.jobId, error: (error as Error).message });
    yield { type: 'error', prediction_id: job.jobId, message: 'watching the prediction failed; poll its status' };
  } finally {
    if (watcher.joined) {
      await deps.watch.leaveWatchers(job, watcher.watcherId).catch((error: unknown) =>
        logger.warn('a fashion watcher slot was not given back; it lapses by itself', {
          jobId: job.jobId,
          error: (error as Error).message,
        }),
      );
    }
  }
}

async function* failedWatch(
  predictionId: string,
  error: unknown,
  signal: AbortSignal,
): AsyncGenerator<FashionStreamEvent> {
  if (signal.aborted) return;
  logger.error('watching a fashion job failed', { jobId: predictionId, error: (error as Error).message });
  yield { type: 'error', prediction_id: predictionId, message: 'watching the prediction failed; poll its status' };
}

/**
 * One look at the prediction: from FASHN for the lease's holder, else from the record. The
 * upstream call has its own time limit rather than a stream's signal: the look may be shared
 * with other streams, and one caller leaving must not fail it for the rest.
 */
function look(job: JobRecord, lease: PollLease, deps: FashionWatchDeps): Promise<PredictionStatus> {
  return deps.watch.shared.run(job.jobId, async () => {
    const now = deps.now();
    const signal = AbortSignal.timeout(POLL_CALL_TIMEOUT_MS);
    if (await deps.watch.takePollLease(job, lease, now)) return pollAndRecord(job, signal, deps);
    const record = await deps.jobs.getOwnedJob(job.accountId, job.jobId, now.getTime());
    if (!record) throw new JobNotFoundError(job.jobId, FASHION_ERROR_ANSWERS.not_found);
    const prediction = await predictionFromRecord(record, signal, deps);
    return { id: job.upstreamJobId, status: prediction.status, output: prediction.output, error: prediction.error };
  });
}

/**
 * The holder's look: FASHN's answer written into the record for the other watchers, an end
 * settled. A failed write is logged, not streamed: this caller's answer is FASHN's, and the
 * next holder (or the poller) writes again.
 */
async function pollAndRecord(job: JobRecord, signal: AbortSignal, deps: FashionWatchDeps): Promise<PredictionStatus> {
  const status = await predictionStatus(await deps.fashn(), job.upstreamJobId, { send: deps.send, signal });
  const progress = fashionProgressOf(status);
  const written = isJobEnd(progress)
    ? settleJob(job, progress, deps)
    : deps.watch.recordProgress(job, progress, deps.now());
  await written.catch((error: unknown) =>
    logger.warn('a watched fashion job’s status was not recorded; the next look will', {
      jobId: job.jobId,
      error: (error as Error).message,
    }),
  );
  return status;
}

/** Resolves after `ms`, or at once when the stream's caller has gone. */
function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
