import { maxPollsOf, type JobDriver } from './job-driver.js';
import type { JobRecord } from './job-record.js';
import type { JobStepInput } from './poll-step.js';

/**
 * The input of a job's state machine execution: the job's identity plus its kind's limits, so
 * one machine serves every kind (lib/constructs/job-poller-definition.ts reads these fields).
 */
export interface JobExecutionInput extends JobStepInput {
  readonly kind: string;
  readonly maxAttempts: number;
  readonly pollIntervalSeconds: number;
}

export function jobExecutionInput(job: JobRecord, driver: JobDriver): JobExecutionInput {
  return {
    jobId: job.jobId,
    accountId: job.accountId,
    kind: job.kind,
    attempt: 1,
    maxAttempts: maxPollsOf(driver),
    pollIntervalSeconds: driver.pollIntervalSeconds,
    deadline: new Date(Date.parse(job.createdAt) + driver.maxWaitSeconds * 1000).toISOString(),
  };
}
