import { createJob, getOwnedJob } from '../../../lambdas/jobs/job-repository.js';
import { JOB_ERRORS } from '../../../lambdas/jobs/job-step-errors.js';
import { failJob, pollJob, type JobStepInput } from '../../../lambdas/jobs/poll-step.js';
import type { JobRecord } from '../../../lambdas/jobs/job-record.js';
import {
  meteredFor,
  startJobTables,
  startJobUpstream,
  stepDeps,
  testJobDriver,
  testJobRecord,
  type JobUpstream,
  type UpstreamStep,
} from '../../support/job-upstream.js';

/** The status step core against the embedded DynamoDB and a loopback upstream (no mocks). */
let tables: { stop(): Promise<void> };
let upstream: JobUpstream;
let accounts = 0;

beforeAll(async () => {
  tables = await startJobTables('poll-step');
  upstream = await startJobUpstream();
}, 30_000);

afterAll(async () => {
  await upstream.close();
  await tables.stop();
});

const CREDIT_MICRO_USD = 75_000;
const deps = () => stepDeps([testJobDriver(upstream.url)]);

/** A job of a fresh account (so its usage is its own) whose upstream answers `steps`. */
async function jobWith(steps: readonly UpstreamStep[], fields: Partial<JobRecord> = {}): Promise<JobRecord> {
  const job = testJobRecord({ accountId: `acct-${++accounts}`, ...fields });
  upstream.script(job.upstreamJobId, steps);
  await createJob(job);
  return job;
}

const inputOf = (job: JobRecord, attempt = 1, deadline = new Date(Date.now() + 60_000)): JobStepInput => ({
  jobId: job.jobId,
  accountId: job.accountId,
  attempt,
  deadline: deadline.toISOString(),
});

const stored = (job: JobRecord) => getOwnedJob(job.accountId, job.jobId);

test('polls until the upstream is done: progress recorded, then the result, usage metered once', async () => {
  const job = await jobWith([
    { body: { status: 'queued' } },
    { body: { status: 'running' } },
    { body: { status: 'done', url: 'u' } },
  ]);
  expect(await pollJob(inputOf(job, 1), deps())).toEqual({ done: false, phase: 'queued' });
  expect(await pollJob(inputOf(job, 2), deps())).toEqual({ done: false, phase: 'running' });
  expect(await stored(job)).toMatchObject({ phase: 'running', upstreamStatus: 'running', polls: 2 });
  expect(await pollJob(inputOf(job, 3), deps())).toEqual({ done: true, phase: 'succeeded', ended: true });
  expect(await stored(job)).toMatchObject({ phase: 'succeeded', result: { url: 'u' } });
  expect(await meteredFor(job.accountId)).toEqual({ requests: 1, costMicroUsd: 2 * CREDIT_MICRO_USD });
});

test('replays after the end (a retried poll, the Catch, a resumed execution) neither poll nor meter again', async () => {
  const job = await jobWith([{ body: { status: 'done', url: 'u' } }]);
  await pollJob(inputOf(job), deps());
  const polls = upstream.polls(job.upstreamJobId);
  expect(await pollJob(inputOf(job), deps())).toEqual({ done: true, phase: 'succeeded' });
  expect(await failJob({ ...inputOf(job), failure: { Error: 'States.Timeout' } }, deps())).toEqual({
    done: true,
    phase: 'succeeded',
  });
  expect(upstream.polls(job.upstreamJobId)).toBe(polls);
  expect(await meteredFor(job.accountId)).toEqual({ requests: 1, costMicroUsd: 2 * CREDIT_MICRO_USD });
});

test('an end replayed before the record moved (crash between usage and end) is still metered once', async () => {
  const job = await jobWith([{ body: { status: 'done', url: 'u' } }]);
  // Two polls racing on the same active record both see it running and both end it.
  const outcomes = await Promise.all([pollJob(inputOf(job), deps()), pollJob(inputOf(job), deps())]);
  expect(outcomes.filter((outcome) => outcome.ended)).toHaveLength(1);
  expect(await meteredFor(job.accountId)).toEqual({ requests: 1, costMicroUsd: 2 * CREDIT_MICRO_USD });
});

test('a job that failed upstream ends failed with its error, metered at zero cost', async () => {
  const job = await jobWith([{ body: { status: 'error', message: 'face not found' } }]);
  expect(await pollJob(inputOf(job), deps())).toEqual({ done: true, phase: 'failed', ended: true });
  expect(await stored(job)).toMatchObject({
    phase: 'failed',
    error: { name: 'upstream_failed', message: 'face not found' },
  });
  expect(await meteredFor(job.accountId)).toEqual({ requests: 1, costMicroUsd: 0 });
});

test('a transient upstream failure is thrown for the machine to retry; the job stays active', async () => {
  const job = await jobWith([{ status: 503, body: { status: 'busy' } }, { body: { status: 'done', url: 'u' } }]);
  await expect(pollJob(inputOf(job), deps())).rejects.toMatchObject({ name: JOB_ERRORS.upstreamTransient });
  expect((await stored(job))?.phase).toBe('queued');
  expect(await pollJob(inputOf(job), deps())).toMatchObject({ done: true, phase: 'succeeded' });
});

test('a permanent upstream failure ends the job failed, no retry', async () => {
  const job = await jobWith([{ status: 400, body: { status: 'bad' } }]);
  expect(await pollJob(inputOf(job), deps())).toEqual({ done: true, phase: 'failed', ended: true });
  expect((await stored(job))?.error).toEqual({ name: 'bad_request', message: 'upstream 400' });
});

test('past its deadline the step throws Job.TimedOut without asking the upstream', async () => {
  const job = await jobWith([{ body: { status: 'running' } }]);
  await expect(pollJob(inputOf(job, 1, new Date(Date.now() - 1)), deps())).rejects.toMatchObject({
    name: JOB_ERRORS.timedOut,
  });
  expect(upstream.polls(job.upstreamJobId)).toBe(0);
});

test('the Catch target ends the job failed with the caught error, once, and meters it once', async () => {
  const job = await jobWith([{ body: { status: 'running' } }]);
  const cause = JSON.stringify({ errorMessage: 'upstream 503 five times', errorType: JOB_ERRORS.upstreamTransient });
  const failure = { Error: JOB_ERRORS.upstreamTransient, Cause: cause };
  expect(await failJob({ ...inputOf(job), failure }, deps())).toEqual({ done: true, phase: 'failed', ended: true });
  expect(await failJob({ ...inputOf(job), failure }, deps())).toEqual({ done: true, phase: 'failed' });
  expect((await stored(job))?.error).toEqual({
    name: JOB_ERRORS.upstreamTransient,
    message: 'upstream 503 five times',
  });
  expect(await meteredFor(job.accountId)).toEqual({ requests: 1, costMicroUsd: 0 });
});

test("a job of an unregistered kind ends failed; another account's or an unknown job is gone", async () => {
  const job = await jobWith([], { kind: 'not-registered' });
  expect(await pollJob(inputOf(job), deps())).toMatchObject({ done: true, phase: 'failed' });
  expect((await stored(job))?.error?.name).toBe('Job.UnknownKind');
  const other = await jobWith([{ body: { status: 'done' } }]);
  expect(await pollJob({ ...inputOf(other), accountId: 'acct-intruder' }, deps())).toEqual({
    done: true,
    phase: 'gone',
  });
  expect((await stored(other))?.phase).toBe('queued');
});
