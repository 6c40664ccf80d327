import { Meter, type MeteredWork } from '../usage/metering.js';
import type { UsageEntry } from '../store/usage-items.js';
import type { JobRecord } from './job-record.js';

/**
 * The sequence of a job's one usage entry under its submitting request's id. The ledger refuses
 * a key it already holds, so however often a job's end is replayed (retried polls, the Catch
 * after a late end, a resumed execution) the job is counted once. Sequences below it are the
 * submitting request's own entries.
 */
export const JOB_USAGE_SEQUENCE = 1000;

/** The ledger entry of an ended job: priced as Meter prices work, keyed by the job, timed at its submission. */
export function jobUsageEntry(job: JobRecord, work: MeteredWork): UsageEntry {
  const meter = new Meter({
    requestId: job.requestId,
    accountId: job.accountId,
    keyId: job.keyId,
    route: job.route,
    at: new Date(job.createdAt),
  });
  meter.work(work);
  return { ...meter.recorded[0]!, sequence: JOB_USAGE_SEQUENCE };
}
