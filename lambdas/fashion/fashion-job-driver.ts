import { MEDIA_PROVIDERS } from '../catalog/media-providers.js';
import type { MeteredWork } from '../usage/metering.js';
import { creditsCharged } from './credits.js';
import { configuredFashion } from './fashion-deployment.js';
import { FashionError, type FashionErrorKind } from './fashion-errors.js';
import { predictionStatus, type PredictionStatus } from './fashn-wire.js';
import { UpstreamError, upstreamFailure, type FailureKind } from '../providers/upstream-failure.js';
import type { JobDriver, JobEnd, JobProgress, JobReaders } from '../jobs/job-driver.js';
import type { JobRecord, JsonObject } from '../jobs/job-record.js';
import { StoredAttributes } from '../jobs/stored-job.js';

/**
 * Fashion jobs over FASHN (kind `fashion`): each poll is one status read of the prediction;
 * `completed` ends the job with its outputs, `failed` with FASHN's runtime error. The submit
 * route keeps the credits the request implies as the record's `details`, which price the
 * prediction when FASHN reports no figure of its own. Predictions take seconds (image-to-video
 * 1 to 3 minutes): polled every 3 s, for up to 20 minutes.
 */
export const FASHION_JOB_KIND = 'fashion';

/** Every credit is priced alike (catalog/unit-prices.ts), whatever the model. */
export const FASHION_PRICED_MODEL = 'fashn/credit';

/**
 * Outputs kept in the job record, in characters: CDN URLs fit many times over. Base64 outputs
 * (`return_base64`) run to megabytes, beyond a DynamoDB item's 400 KB: the record then says
 * they are at the upstream, which serves them for 60 minutes (the status route reads them there).
 */
export const MAX_RECORDED_OUTPUT_CHARS = 64 * 1024;

/** What the submit route keeps in the record's `details`. */
export interface FashionJobDetails {
  /** The credits the request implies (credits.ts expectedCredits). */
  readonly expectedCredits: number;
}

/** A succeeded fashion job's `result`. */
export interface FashionJobResult {
  /** The output URLs, unless they are too large to keep (then `outputsAtUpstream`). */
  readonly output?: readonly string[];
  readonly outputsAtUpstream?: true;
  /** FASHN's `x-fashn-credits-used`, when it sent one. */
  readonly creditsUsed?: number;
}

/** A record without `details` prices by FASHN's figure alone (`undefined`: no credits expected). */
export const fashionJobDriver: JobDriver & JobReaders<FashionJobDetails | undefined, FashionJobResult> = {
  kind: FASHION_JOB_KIND,
  pollIntervalSeconds: 3,
  maxWaitSeconds: 20 * 60,
  async poll(job, deps) {
    try {
      return fashionProgressOf(
        await predictionStatus(configuredFashion(await deps.endpoint(MEDIA_PROVIDERS.fashn)), job.upstreamJobId, deps),
      );
    } catch (error) {
      if (!(error instanceof FashionError)) throw error;
      return endOrRetry(error);
    }
  },
  usage(job, end) {
    return fashionWork(job, end);
  },
  details: fashionDetailsOf,
  result: fashionResultOf,
};

function fashionDetailsOf(job: Pick<JobRecord, 'jobId' | 'details'>): FashionJobDetails | undefined {
  if (job.details === undefined) return undefined;
  return { expectedCredits: StoredAttributes.of(job.jobId, 'details', job.details).number('expectedCredits') };
}

function fashionResultOf(job: Pick<JobRecord, 'jobId' | 'result'>): FashionJobResult {
  const result = StoredAttributes.of(job.jobId, 'result', job.result);
  const creditsUsed = result.optionalNumber('creditsUsed');
  return {
    ...(result.has('output') ? { output: result.texts('output') } : {}),
    ...(result.has('outputsAtUpstream') ? { outputsAtUpstream: result.oneOf('outputsAtUpstream', [true]) } : {}),
    ...(creditsUsed === undefined ? {} : { creditsUsed }),
  };
}

/**
 * Throttling and outages are thrown as retryable, for the state machine's backoff (the job
 * goes on); anything else (an unknown prediction, a refused key, an empty balance) ends the
 * job failed under FASHN's own error name, as a client reads it in `error.name`.
 */
function endOrRetry(error: FashionError): JobEnd {
  const retryable = RETRYABLE[error.kind];
  if (retryable) {
    const { status, retryAfterMs } = error.details;
    throw new UpstreamError(
      upstreamFailure(retryable, error.message, {
        ...(status === undefined ? {} : { status }),
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      }),
    );
  }
  return {
    phase: 'failed',
    error: { name: error.details.upstreamError ?? ENDING_NAMES[error.kind] ?? 'PipelineError', message: error.message },
  };
}

const RETRYABLE: Readonly<Partial<Record<FashionErrorKind, FailureKind>>> = {
  rate_limited: 'rate_limit',
  concurrency_limited: 'rate_limit',
  upstream_failed: 'overload',
};

/** FASHN's names for the ending failures, where its answer carried none. */
const ENDING_NAMES: Readonly<Partial<Record<FashionErrorKind, string>>> = {
  not_found: 'NotFound',
  upstream_auth: 'UnauthorizedAccess',
  not_configured: 'NotConfigured',
  out_of_credits: 'OutOfCredits',
};

/** A FASHN status as job progress: the subscribe stream reads its ends through this too. */
export function fashionProgressOf(status: PredictionStatus): JobProgress {
  switch (status.status) {
    case 'starting':
    case 'in_queue':
      return { phase: 'queued', upstreamStatus: status.status };
    case 'processing':
      return { phase: 'running', upstreamStatus: status.status };
    case 'completed':
      return { phase: 'succeeded', upstreamStatus: status.status, result: resultOf(status) };
    case 'failed':
      return {
        phase: 'failed',
        upstreamStatus: status.status,
        error: status.error ?? { name: 'PipelineError', message: 'the prediction failed' },
      };
  }
}

function resultOf(status: PredictionStatus): JsonObject {
  const output = status.output ?? [];
  const kept = output.reduce((chars, url) => chars + url.length, 0) <= MAX_RECORDED_OUTPUT_CHARS;
  return {
    ...(kept ? { output } : { outputsAtUpstream: true }),
    ...(status.creditsUsed === undefined ? {} : { creditsUsed: status.creditsUsed }),
  } satisfies FashionJobResult;
}

/**
 * The ledger entry of an ended prediction: its credits (0 when failed; FASHN's
 * `x-fashn-credits-used` when sent, else the request's figure, marked estimated).
 */
export function fashionWork(job: JobRecord, end: JobEnd): MeteredWork {
  const expected = fashionDetailsOf(job)?.expectedCredits ?? 0;
  const creditsUsed =
    end.phase === 'succeeded' ? fashionResultOf({ jobId: job.jobId, result: end.result }).creditsUsed : undefined;
  const charged = creditsCharged(expected, {
    status: end.phase === 'succeeded' ? 'completed' : 'failed',
    ...(creditsUsed === undefined ? {} : { creditsUsed }),
  });
  return {
    model: FASHION_PRICED_MODEL,
    provider: MEDIA_PROVIDERS.fashn.id,
    unit: 'credits',
    quantity: charged.credits,
    status: 200,
    outcome: end.phase === 'succeeded' ? 'ok' : `failed:${end.error.name}`,
    estimated: charged.estimated,
  };
}
