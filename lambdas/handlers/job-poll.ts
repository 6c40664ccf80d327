import { configuration } from '../config/configuration.js';
import { jobStepDeps } from '../jobs/job-step-deps.js';
import { pollJob, type JobStepInput } from '../jobs/poll-step.js';

/** Step Functions task (not an API route): polls one job's upstream once. */
export const handler = (input: JobStepInput) => pollJob(input, jobStepDeps(configuration()));
