import { configuration } from '../config/configuration.js';
import { jobStepDeps } from '../jobs/job-step-deps.js';
import { failJob, type CaughtFailure, type JobStepInput } from '../jobs/poll-step.js';

/** Step Functions task (not an API route): the poller's Catch target, ends the job failed. */
export const handler = (input: JobStepInput & { failure: CaughtFailure }) =>
  failJob(input, jobStepDeps(configuration()));
