import { DomainError, type ErrorAnswer, type ErrorAnswers } from '../errors/domain-error.js';
import type { JobDriver } from './job-driver.js';
import type { JobRecord } from './job-record.js';
import { isJobId } from './start-job.js';

/**
 * A status route's read of one job: the caller's own job of the route's kind, or
 * JobNotFoundError. An id of another account, of another kind, an expired one, an unknown one
 * and one that is not even shaped like an id all look the same.
 */
export class JobNotFoundError extends DomainError<'not_found'> {
  /** The job kind's own words for it (a video task, a fashion prediction), else a job's. */
  readonly answers: ErrorAnswers<'not_found'>;

  constructor(
    readonly jobId: string,
    notFound: ErrorAnswer = JOB_NOT_FOUND,
  ) {
    super('not_found', 'job not found', {});
    this.name = 'JobNotFoundError';
    this.answers = { not_found: notFound };
  }
}

const JOB_NOT_FOUND: ErrorAnswer = { status: 404, code: 'NOT_FOUND', message: 'Job not found', field: 'id' };

export type GetOwnedJob = (accountId: string, jobId: string, now?: number) => Promise<JobRecord | undefined>;

export async function ownedJobOfKind(
  accountId: string,
  jobId: string,
  kind: string,
  deps: { readonly getOwnedJob: GetOwnedJob; readonly now: () => Date },
  notFound?: ErrorAnswer,
): Promise<JobRecord> {
  const job = isJobId(jobId) ? await deps.getOwnedJob(accountId, jobId, deps.now().getTime()) : undefined;
  if (!job || job.kind !== kind) throw new JobNotFoundError(jobId, notFound);
  return job;
}

/**
 * After its deadline the poller fails a job within minutes (its retries end, then its Catch
 * marks it). A job still active well past that has lost its poller (an execution that never
 * started or died beyond its Catch): reported failed rather than running forever.
 */
export const OVERDUE_GRACE_SECONDS = 15 * 60;

/** The job as a status route reports it: as recorded, unless its poller is overdue. */
export function reportedJob(job: JobRecord, driver: JobDriver, now: Date): JobRecord {
  if (job.phase !== 'queued' && job.phase !== 'running') return job;
  const overdueAt = Date.parse(job.createdAt) + (driver.maxWaitSeconds + OVERDUE_GRACE_SECONDS) * 1000;
  if (now.getTime() <= overdueAt) return job;
  return {
    ...job,
    phase: 'failed',
    error: { name: 'Job.TimedOut', message: `the job did not finish within ${driver.maxWaitSeconds} s` },
  };
}
