import { isRetryable, UpstreamError } from '../providers/upstream-failure.js';
import { isJobEnd, type JobEnd, type JobPollDeps, type JobUnderway } from './job-driver.js';
import { isEnded, type JobPhase, type JobRecord } from './job-record.js';
import { JOB_ERRORS, JobStepError } from './job-step-errors.js';
import { POLL_LEASE_MS, POLLER_LEASE_HOLDER, type PollLease } from './poll-lease.js';
import { settleJob, type SettleDeps } from './settle-job.js';

/**
 * The state machine's status step: one poll of one job's upstream, its record updated, and on
 * the job's end its usage written, at most once. No HTTP and no AWS here: the repository, the
 * ledger writer and the upstream transport come in as dependencies.
 */

/** What the machine hands the step (see lib/constructs/job-poller-definition.ts). */
export interface JobStepInput {
  readonly jobId: string;
  readonly accountId: string;
  /** From 1; the machine counts it. */
  readonly attempt: number;
  /** ISO 8601: past it the job is failed as timed out. */
  readonly deadline: string;
}

/** The failure a Catch hands on: Step Functions' own `{Error, Cause}`. */
export interface CaughtFailure {
  readonly Error: string;
  readonly Cause?: string;
}

/** What the machine's Choice reads: `done` ends the loop. */
export interface JobStepOutcome {
  readonly done: boolean;
  readonly phase: JobPhase | 'gone';
  /** True when this call ended the job (and so wrote its usage, if any). */
  readonly ended?: boolean;
}

export interface JobStore {
  getOwnedJob(accountId: string, jobId: string, now?: number): Promise<JobRecord | undefined>;
  takePollLease(job: JobRecord, lease: PollLease, now?: Date): Promise<boolean>;
  recordProgress(job: JobRecord, progress: JobUnderway, now?: Date): Promise<boolean>;
  endJob(job: JobRecord, end: JobEnd, now?: Date): Promise<boolean>;
}

export interface JobStepDeps extends SettleDeps {
  readonly jobs: JobStore;
  readonly upstream: JobPollDeps;
}

const GONE: JobStepOutcome = { done: true, phase: 'gone' };
const POLLER_LEASE: PollLease = { holder: POLLER_LEASE_HOLDER, ms: POLL_LEASE_MS };

export async function pollJob(input: JobStepInput, deps: JobStepDeps): Promise<JobStepOutcome> {
  const job = await deps.jobs.getOwnedJob(input.accountId, input.jobId, deps.now().getTime());
  if (!job) return GONE;
  if (isEnded(job.phase)) return { done: true, phase: job.phase };
  const driver = deps.drivers.get(job.kind);
  if (!driver) {
    return finish(job, failed('Job.UnknownKind', `no driver is registered for job kind ${job.kind}`), deps);
  }
  if (deps.now().getTime() > Date.parse(input.deadline)) {
    throw new JobStepError(JOB_ERRORS.timedOut, `job ${job.jobId} did not finish by ${input.deadline}`);
  }
  // A stream watching the job asked the upstream within the lease and recorded what it saw:
  // no second call. The job stays the poller's to end; the next attempt looks again.
  if (!(await deps.jobs.takePollLease(job, POLLER_LEASE, deps.now()))) return { done: false, phase: job.phase };
  const progress = await driver.poll(job, deps.upstream).catch((error: unknown) => {
    if (!(error instanceof UpstreamError)) throw error;
    if (isRetryable(error.failure)) throw new JobStepError(JOB_ERRORS.upstreamTransient, error.message);
    return failed(error.failure.kind, error.message);
  });
  if (isJobEnd(progress)) return finish(job, progress, deps);
  await deps.jobs.recordProgress(job, progress, deps.now());
  return { done: false, phase: progress.phase };
}

/** The Catch target: ends the job failed with the caught error, unless it has already ended. */
export async function failJob(
  input: JobStepInput & { readonly failure: CaughtFailure },
  deps: JobStepDeps,
): Promise<JobStepOutcome> {
  const job = await deps.jobs.getOwnedJob(input.accountId, input.jobId, deps.now().getTime());
  if (!job) return GONE;
  if (isEnded(job.phase)) return { done: true, phase: job.phase };
  return finish(job, failed(input.failure.Error, causeMessage(input.failure.Cause)), deps);
}

async function finish(job: JobRecord, end: JobEnd, deps: JobStepDeps): Promise<JobStepOutcome> {
  return { done: true, phase: end.phase, ended: await settleJob(job, end, deps) };
}

const failed = (name: string, message: string): JobEnd => ({ phase: 'failed', error: { name, message } });

const MAX_CAUSE_CHARS = 500;

/** Lambda's Cause is JSON `{errorMessage, errorType, ...}`; other causes are plain text. */
function causeMessage(cause: string | undefined): string {
  if (!cause) return 'the job failed';
  let message = cause;
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: unknown };
    if (typeof parsed.errorMessage === 'string') message = parsed.errorMessage;
  } catch {
    // plain text
  }
  return message.slice(0, MAX_CAUSE_CHARS);
}
