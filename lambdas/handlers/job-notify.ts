import { configuration } from '../config/configuration.js';
import { jobNotifyDeps } from '../jobs/job-notify-deps.js';
import { notifyJob, type JobNotifyInput } from '../jobs/notify-step.js';

/** Step Functions task (not an API route): one delivery of an ended job's webhook event. */
export const handler = (input: JobNotifyInput) => notifyJob(input, jobNotifyDeps(configuration()));
