import { createJob, endJob, getOwnedJob, recordProgress } from '../../../lambdas/jobs/job-repository.js';
import { startJobTables, testJobRecord } from '../../support/job-upstream.js';

/** The job repository against the embedded DynamoDB (dynalite): single-item conditional writes only. */
let tables: { stop(): Promise<void> };

beforeAll(async () => {
  tables = await startJobTables('job-repo');
}, 30_000);

afterAll(async () => {
  await tables.stop();
});

const done = { phase: 'succeeded', upstreamStatus: 'done', result: { url: 'https://cdn.example/v.mp4' } } as const;

test('a job is created once: a second create with the same id writes nothing', async () => {
  const job = testJobRecord();
  expect(await createJob(job)).toBe(true);
  expect(await createJob({ ...job, model: 'other' })).toBe(false);
  expect((await getOwnedJob(job.accountId, job.jobId))?.model).toBe(job.model);
});

test('reads are owner-scoped: another account, an unknown id and an expired job are all not found', async () => {
  const job = testJobRecord();
  await createJob(job);
  expect(await getOwnedJob(job.accountId, job.jobId)).toEqual(job);
  expect(await getOwnedJob('acct-b', job.jobId)).toBeUndefined();
  expect(await getOwnedJob(job.accountId, 'job_unknown')).toBeUndefined();
  const expired = testJobRecord({ expiresAt: Math.floor(Date.now() / 1000) - 1 });
  await createJob(expired);
  expect(await getOwnedJob(expired.accountId, expired.jobId)).toBeUndefined();
});

test('progress updates the phase and counts polls; replaying it writes the same phase again', async () => {
  const job = testJobRecord();
  await createJob(job);
  const running = { phase: 'running', upstreamStatus: 'Processing' } as const;
  expect(await recordProgress(job, running)).toBe(true);
  expect(await recordProgress(job, running)).toBe(true);
  expect(await getOwnedJob(job.accountId, job.jobId)).toMatchObject({
    phase: 'running',
    upstreamStatus: 'Processing',
    polls: 2,
  });
});

test('the end transition reports whether this call ended the job, and never moves an ended job', async () => {
  const job = testJobRecord();
  await createJob(job);
  expect(await endJob(job, done)).toBe(true);
  expect(await endJob(job, done)).toBe(false);
  expect(await endJob(job, { phase: 'failed', error: { name: 'Job.TimedOut', message: 'late' } })).toBe(false);
  expect(await recordProgress(job, { phase: 'running', upstreamStatus: 'Processing' })).toBe(false);
  const stored = await getOwnedJob(job.accountId, job.jobId);
  expect(stored).toMatchObject({ phase: 'succeeded', result: done.result, upstreamStatus: 'done' });
  expect(stored?.error).toBeUndefined();
  expect(stored?.endedAt).toEqual(expect.any(String));
});

test('concurrent ends: exactly one call ends the job', async () => {
  const job = testJobRecord();
  await createJob(job);
  const results = await Promise.all([
    endJob(job, done),
    endJob(job, { phase: 'failed', error: { name: 'x', message: 'y' } }),
    endJob(job, done),
  ]);
  expect(results.filter(Boolean)).toHaveLength(1);
});

test("another account's copy of the job object cannot move it", async () => {
  const job = testJobRecord();
  await createJob(job);
  expect(await endJob({ ...job, accountId: 'acct-b' }, done)).toBe(false);
  expect(await recordProgress({ ...job, accountId: 'acct-b' }, { phase: 'running', upstreamStatus: 'x' })).toBe(false);
  expect((await getOwnedJob(job.accountId, job.jobId))?.phase).toBe('queued');
});
