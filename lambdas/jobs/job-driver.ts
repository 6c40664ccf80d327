import type { MeteredWork } from '../usage/metering.js';
import type { TransportRequest, TransportResponse } from '../providers/http-transport.js';
import type { PlatformService, ProviderEndpoint } from '../providers/provider-config.js';
import { isEnded, type EndPhase, type JobError, type JobRecord, type JsonObject } from './job-record.js';

/**
 * The plug-in contract of a job kind (video, fashion...): how to ask its upstream how far a
 * job got, and what an ended job costs. The platform does the rest (the record, the state
 * machine, retries, the end transition, metering exactly once).
 */
export interface JobDriver {
  /** The `kind` of the records it serves; unique in the registry. */
  readonly kind: string;
  /** The wait between polls (the state machine's Wait). */
  readonly pollIntervalSeconds: number;
  /** Total time a job may take before it is failed as timed out (`Job.TimedOut`). */
  readonly maxWaitSeconds: number;
  /** @default ceil(maxWaitSeconds / pollIntervalSeconds) + 1 */
  readonly maxPolls?: number;
  /**
   * Asks the upstream once. Throws UpstreamError on a failed call: a retryable kind is retried
   * by the state machine with backoff; any other kind ends the job failed.
   */
  poll(job: JobRecord, deps: JobPollDeps): Promise<JobProgress>;
  /**
   * What the ended job is billed (one ledger entry), or undefined for nothing. Called with the
   * job's end however it came (the upstream's answer, a timeout, a permanent error); the
   * platform writes it at most once.
   */
  usage(job: JobRecord, end: JobEnd): MeteredWork | undefined;
}

/**
 * How a kind reads what the platform keeps opaque in its records: the `details` its submit
 * route wrote and the `result` its poll ended the job with. A kind's own code reads them only
 * through these, which check each member they return and throw StoredJobError
 * (stored-job.ts) naming it, so a record another version wrote fails clearly instead of
 * reading as a field that is not there.
 */
export interface JobReaders<Details, Result> {
  details(job: Pick<JobRecord, 'jobId' | 'details'>): Details;
  /** A succeeded job's result (or a succeeded end's). */
  result(job: Pick<JobRecord, 'jobId' | 'result'>): Result;
}

export interface JobPollDeps {
  /** The platform's endpoint for an upstream (lambdas/providers/provider-config.ts); undefined without a key. */
  readonly endpoint: (service: PlatformService) => Promise<ProviderEndpoint | undefined>;
  readonly send: (request: TransportRequest) => Promise<TransportResponse>;
  readonly signal: AbortSignal;
}

export type JobProgress = JobUnderway | JobEnd;

export interface JobUnderway {
  readonly phase: 'queued' | 'running';
  readonly upstreamStatus: string;
}

export type JobEnd =
  | { readonly phase: Extract<EndPhase, 'succeeded'>; readonly upstreamStatus: string; readonly result: JsonObject }
  | { readonly phase: Extract<EndPhase, 'failed'>; readonly upstreamStatus?: string; readonly error: JobError };

export const maxPollsOf = (driver: JobDriver): number =>
  driver.maxPolls ?? Math.ceil(driver.maxWaitSeconds / driver.pollIntervalSeconds) + 1;

export const isJobEnd = (progress: JobProgress): progress is JobEnd => isEnded(progress.phase);
