import { MEDIA_PROVIDERS } from '../catalog/media-providers.js';
import { expectedCredits } from './credits.js';
import { FASHION_ERROR_ANSWERS, FashionError, invalidFashion } from './fashion-errors.js';
import { webhookHostRefusal } from '../jobs/webhook-url.js';
import { checkFashionHosts } from './fashion-images.js';
import { parseFashionRequest } from './fashion-request.js';
import { predictionStatus, runPrediction, type PredictionError, type PredictionState } from './fashn-wire.js';
import { parseIdempotencyKey, requestFingerprint, runIdempotently } from '../store/idempotency.js';
import {
  FASHION_JOB_KIND,
  FASHION_PRICED_MODEL,
  fashionJobDriver,
  type FashionJobDetails,
} from './fashion-job-driver.js';
import { ownedJobOfKind, reportedJob } from '../jobs/job-lookup.js';
import { webhookReportOf, type JobRecord } from '../jobs/job-record.js';
import { recordedOwner, type JobOwner, type MediaJobDeps } from '../jobs/media-job-deps.js';
import { submitWithReservation } from '../jobs/job-reservations.js';
import { unitCostMicroUsd } from '../catalog/unit-prices.js';
import { startJob } from '../jobs/start-job.js';

/**
 * Fashion predictions as jobs (docs/interface.md §4.10): run submits to FASHN and starts the poller, status
 * reads the job record, subscribe watches the job for at most 2 minutes (fashion-watch.ts). The
 * `prediction_id` callers see is the job's id, never FASHN's, so every read is owner-scoped.
 * No HTTP here: refusals are FashionErrors or IdempotencyErrors, an unknown id JobNotFoundError.
 */

/** docs/interface.md §2.12's prediction. */
export interface FashionPrediction {
  readonly predictionId: string;
  readonly status: PredictionState;
  readonly modelName: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly output: readonly string[] | null;
  readonly error: PredictionError | null;
  /** How the job's webhook went (docs/interface.md §6.4); null without one. */
  readonly webhook: ReturnType<typeof webhookReportOf>;
}

export interface FashionSubmission {
  readonly body: unknown;
  readonly owner: JobOwner;
  /** The `Idempotency-Key` header as received (undefined when absent). */
  readonly idempotencyKey?: string;
  readonly signal: AbortSignal;
}

export interface SubmittedPrediction {
  /** As docs/interface.md §4.10's run answers it: `starting`. */
  readonly prediction: FashionPrediction;
  /** True when an earlier call with the same Idempotency-Key made this prediction. */
  readonly replayed: boolean;
  /** The job's record, when this call made it (not on a replay): a watcher need not read it again. */
  readonly job?: JobRecord;
}

/** What the idempotency record keeps of a submission: enough to answer a repeat the same way. */
interface Submitted {
  readonly jobId: string;
  readonly createdAt: string;
}

/**
 * Checks the body, then submits once: with an `Idempotency-Key`, at most one prediction per
 * key, account and body within 24 hours (FASHN has none of its own, docs/upstreams.md §7.5); a
 * repeat answers the first prediction. Without the header every call submits.
 */
export async function submitFashionJob(input: FashionSubmission, deps: MediaJobDeps): Promise<SubmittedPrediction> {
  const key = parseIdempotencyKey(input.idempotencyKey);
  const webhookReceivers = deps.webhookReceivers ?? [];
  const request = parseFashionRequest(input.body, { webhookReceivers });
  const webhookRefusal = await webhookHostRefusal(request.webhookUrl, webhookReceivers, { lookup: deps.lookupHost });
  if (webhookRefusal !== undefined) throw invalidFashion('webhook_url', webhookRefusal);
  await checkFashionHosts(request, { lookup: deps.lookupHost });
  const endpoint = await deps.fashn();
  let created: JobRecord | undefined;
  const submit = async (): Promise<Submitted> => {
    const details: FashionJobDetails = { expectedCredits: expectedCredits(request) };
    // The most it is billed: the credits the request implies (FASHN charges no more than it asks).
    const bound = unitCostMicroUsd(FASHION_PRICED_MODEL, 'credits', details.expectedCredits).microUsd;
    const { value: predictionId, budgetHolds } = await submitWithReservation(
      input.owner.budgets ?? [],
      bound,
      async () => (await runPrediction(endpoint, request, { send: deps.send, signal: input.signal })).predictionId,
    );
    const job = await startJob(
      {
        kind: FASHION_JOB_KIND,
        ...recordedOwner(input.owner),
        ...(budgetHolds ? { budgetHolds } : {}),
        provider: MEDIA_PROVIDERS.fashn.id,
        model: request.model.name,
        upstreamJobId: predictionId,
        upstreamStatus: 'starting',
        details: { ...details },
        ...(request.webhookUrl === undefined ? {} : { webhookUrl: request.webhookUrl }),
      },
      deps,
    );
    created = job;
    return { jobId: job.jobId, createdAt: job.createdAt };
  };
  const { result, replayed } =
    key === undefined
      ? { result: await submit(), replayed: false }
      : await runIdempotently(
          { accountId: input.owner.accountId, key, fingerprint: requestFingerprint(input.body) },
          submit,
          deps.idempotency,
        );
  const prediction: FashionPrediction = {
    predictionId: result.jobId,
    status: 'starting',
    modelName: request.model.name,
    createdAt: Date.parse(result.createdAt),
    output: null,
    error: null,
    webhook: webhookReportOf(request.webhookUrl === undefined ? {} : { webhookUrl: request.webhookUrl }),
  };
  return { prediction, replayed, ...(created ? { job: created } : {}) };
}

/** The caller's own prediction as its job record says (outputs too large to keep read from FASHN). */
export async function fashionPrediction(
  accountId: string,
  predictionId: string,
  signal: AbortSignal,
  deps: MediaJobDeps,
): Promise<FashionPrediction> {
  return predictionFromRecord(await ownedFashionJob(accountId, predictionId, deps), signal, deps);
}

/** A record as its prediction (outputs kept at the upstream are read there). */
export async function predictionFromRecord(
  record: JobRecord,
  signal: AbortSignal,
  deps: MediaJobDeps,
): Promise<FashionPrediction> {
  const job = reportedJob(record, fashionJobDriver, deps.now());
  const recorded = predictionOf(job);
  if (job.phase !== 'succeeded' || !fashionJobDriver.result(job).outputsAtUpstream) return recorded;
  return { ...recorded, ...(await outputsAtUpstream(job, signal, deps)) };
}

export const ownedFashionJob = (accountId: string, predictionId: string, deps: MediaJobDeps) =>
  ownedJobOfKind(
    accountId,
    predictionId,
    FASHION_JOB_KIND,
    { getOwnedJob: deps.jobs.getOwnedJob, now: deps.now },
    FASHION_ERROR_ANSWERS.not_found,
  );

/** FASHN's own running statuses as recorded; anything else recorded while active reads `processing`. */
const RUNNING: readonly PredictionState[] = ['starting', 'in_queue', 'processing'];

function predictionOf(job: JobRecord): FashionPrediction {
  const base = {
    predictionId: job.jobId,
    modelName: job.model,
    createdAt: Date.parse(job.createdAt),
    webhook: webhookReportOf(job),
  };
  switch (job.phase) {
    case 'queued':
    case 'running': {
      const status = RUNNING.find((running) => running === job.upstreamStatus) ?? 'processing';
      return { ...base, status, output: null, error: null };
    }
    case 'succeeded':
      return { ...base, status: 'completed', output: fashionJobDriver.result(job).output ?? null, error: null };
    case 'failed':
      return { ...base, status: 'failed', output: null, error: job.error ?? null };
  }
}

/**
 * Base64 outputs are served by FASHN for 60 minutes after completion (docs/interface.md §4.10); after that
 * the prediction is still completed, with no outputs and an error saying why.
 */
async function outputsAtUpstream(
  job: JobRecord,
  signal: AbortSignal,
  deps: MediaJobDeps,
): Promise<Pick<FashionPrediction, 'output' | 'error'>> {
  try {
    const status = await predictionStatus(await deps.fashn(), job.upstreamJobId, { send: deps.send, signal });
    return { output: status.output, error: null };
  } catch (error) {
    if (!(error instanceof FashionError) || error.kind !== 'not_found') throw error;
    return {
      output: null,
      error: {
        name: 'OutputExpired',
        message: 'base64 outputs are kept 60 minutes after completion; these have expired',
      },
    };
  }
}
