import { randomBytes } from 'node:crypto';
import type { HeldBudget } from '../store/budget-counters.js';
import { nowSeconds } from '../store/dynamo.js';
import { settleHeldBudgets } from '../usage/budget-holds.js';
import type { JobEnd } from './job-driver.js';
import type { JobDrivers } from './job-driver-registry.js';
import { jobExecutionInput, type JobExecutionInput } from './job-execution.js';
import { JOB_TTL_SECONDS, type JobRecord } from './job-record.js';

/** What a submit route knows once its upstream has accepted the job. */
export type NewJob = Pick<
  JobRecord,
  | 'kind'
  | 'accountId'
  | 'keyId'
  | 'requestId'
  | 'route'
  | 'provider'
  | 'model'
  | 'upstreamJobId'
  | 'upstreamStatus'
  | 'details'
  | 'webhookUrl'
  | 'budgetHolds'
>;

export interface StartJobDeps {
  readonly drivers: JobDrivers;
  readonly jobs: {
    readonly createJob: (job: JobRecord) => Promise<boolean>;
    readonly endJob: (job: JobRecord, end: JobEnd, now?: Date) => Promise<boolean>;
  };
  /** Starts the poller execution named `name`; a repeated name must not start a second one. */
  readonly startExecution: (name: string, input: JobExecutionInput) => Promise<void>;
  readonly now: () => Date;
  /** @default newJobId */
  readonly jobId?: () => string;
  /** Settles a job's budget reservations to its cost (0 releases them). @default settleHeldBudgets */
  readonly settleHolds?: (held: readonly HeldBudget[], costMicroUsd: number) => Promise<void>;
}

/** `job_` + 24 lowercase base32 characters: unguessable, and a valid execution name. */
export function newJobId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return `job_${[...randomBytes(24)].map((byte) => alphabet[byte & 31]).join('')}`;
}

const JOB_ID = /^job_[a-z2-7]{24}$/;

/** Whether `id` has a job id's shape: anything else is never looked up (and never a DynamoDB key). */
export const isJobId = (id: string): boolean => JOB_ID.test(id);

/**
 * Records a new job and starts its poller (execution name = job id, so Step Functions itself
 * refuses a second poller for one job). If the start fails the job is ended failed, so no
 * record waits forever for a poller that never came, and the error is rethrown.
 */
export async function startJob(job: NewJob, deps: StartJobDeps): Promise<JobRecord> {
  const driver = deps.drivers.get(job.kind);
  if (!driver) throw new Error(`no driver is registered for job kind ${job.kind}`);
  const now = deps.now();
  const record: JobRecord = {
    ...job,
    jobId: (deps.jobId ?? newJobId)(),
    phase: 'queued',
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    polls: 0,
    expiresAt: nowSeconds(now.getTime()) + JOB_TTL_SECONDS,
  };
  if (!(await deps.jobs.createJob(record))) throw new Error(`job id ${record.jobId} is already taken`);
  try {
    await deps.startExecution(record.jobId, jobExecutionInput(record, driver));
  } catch (error) {
    const message = `the job poller did not start: ${(error as Error).message}`;
    await deps.jobs.endJob(record, { phase: 'failed', error: { name: 'Job.NotStarted', message } });
    // Nothing will poll it or meter it: what its budgets reserved is given back here.
    if (record.budgetHolds?.length) await (deps.settleHolds ?? settleHeldBudgets)(record.budgetHolds, 0);
    throw error;
  }
  return record;
}
