import { createJob, endJob, getOwnedJob } from '../../../lambdas/jobs/job-repository.js';
import { jobDrivers } from '../../../lambdas/jobs/job-driver-registry.js';
import { settleJob } from '../../../lambdas/jobs/settle-job.js';
import type { MetricRecord } from '../../../lambdas/observability/metric-names.js';
import { recordUsage } from '../../../lambdas/usage/usage-ledger.js';
import { meteredFor, startJobTables, testJobDriver, testJobRecord } from '../../support/job-upstream.js';

/** Ending a job, whoever sees the end: usage and metrics once, the record ended once. */
let tables: { stop(): Promise<void> };
beforeAll(async () => {
  tables = await startJobTables('settle');
}, 30_000);
afterAll(() => tables.stop());

test('the first to settle meters, ends and measures the job; a second settles nothing', async () => {
  const createdAt = new Date(Date.now() - 90_000);
  const job = testJobRecord({ accountId: 'acct-settle', details: { credits: 3 } }, createdAt);
  await createJob(job);
  const published: MetricRecord[][] = [];
  const deps = {
    drivers: jobDrivers([testJobDriver('http://127.0.0.1:9')]),
    recordUsage,
    jobs: { endJob },
    now: () => new Date(createdAt.getTime() + 90_000),
    publishMetrics: (records: readonly MetricRecord[]) => void published.push([...records]),
  };
  const end = { phase: 'succeeded', upstreamStatus: 'done', result: { url: 'u' } } as const;
  expect(await settleJob(job, end, deps)).toBe(true);
  expect(await settleJob(job, end, deps)).toBe(false);
  expect(await getOwnedJob(job.accountId, job.jobId)).toMatchObject({ phase: 'succeeded', result: { url: 'u' } });
  expect(await meteredFor(job.accountId)).toEqual({ requests: 1, costMicroUsd: 3 * 75_000 });
  expect(published).toEqual([
    [
      {
        name: 'gateway.jobs.ended',
        unit: 'Count',
        value: 1,
        dimensions: { 'job.kind': job.kind, 'job.phase': 'succeeded' },
      },
      { name: 'gateway.job.duration', unit: 'Seconds', value: 90, dimensions: { 'job.kind': job.kind } },
      {
        name: 'gateway.cost.micro_usd',
        unit: 'None',
        value: 225_000,
        dimensions: { 'gen_ai.provider.name': 'fashn', 'gen_ai.request.model': 'fashn/credit' },
      },
    ],
  ]);
});

test('a failed job is counted failed; nothing it did not cost is filed as cost', async () => {
  const job = testJobRecord({ accountId: 'acct-settle-failed' });
  await createJob(job);
  const published: MetricRecord[] = [];
  await settleJob(
    job,
    { phase: 'failed', error: { name: 'PoseError', message: 'no pose' } },
    {
      drivers: jobDrivers([testJobDriver('http://127.0.0.1:9')]),
      recordUsage,
      jobs: { endJob },
      now: () => new Date(),
      publishMetrics: (records) => void published.push(...records),
    },
  );
  expect(published.map((r) => [r.name, r.dimensions['job.phase']])).toEqual([
    ['gateway.jobs.ended', 'failed'],
    ['gateway.job.duration', undefined],
  ]);
});
