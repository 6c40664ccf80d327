import { createJob, getOwnedJob } from '../../lambdas/jobs/job-repository.js';
import { jobExecutionInput } from '../../lambdas/jobs/job-execution.js';
import type { JobDriver } from '../../lambdas/jobs/job-driver.js';
import type { JobRecord } from '../../lambdas/jobs/job-record.js';
import { notifyJob, type JobNotifyDeps } from '../../lambdas/jobs/notify-step.js';
import type { DeliveryAnswer } from '../../lambdas/jobs/webhook-delivery.js';
import { failJob, pollJob } from '../../lambdas/jobs/poll-step.js';
import { MachineRunner, type RunOutcome } from '../../local/standins/step-functions-runner.js';
import { WEBHOOK_RETRY } from '../../lib/constructs/job-poller-definition.js';
import {
  meteredFor,
  notifyDeps,
  TEST_KIND,
  startJobTables,
  startJobUpstream,
  stepDeps,
  testJobDriver,
  testJobRecord,
  type JobUpstream,
  type UpstreamStep,
} from '../support/job-upstream.js';
import { synthesizedJobPoller, type SynthesizedJobPoller } from '../support/synthesized-job-poller.js';

/**
 * The job poller's definition, read from the synthesized template, run with
 * aws-local-stepfunctions: the task functions are the real poll and mark-failed steps over the
 * embedded DynamoDB, polling a loopback upstream. Waits and retry pauses are shortened.
 */
let poller: SynthesizedJobPoller;
let tables: { stop(): Promise<void> };
let upstream: JobUpstream;
let accounts = 0;

beforeAll(async () => {
  poller = synthesizedJobPoller();
  tables = await startJobTables('job-machine');
  upstream = await startJobUpstream();
}, 300_000); // Synthesizing the stack takes minutes when the suite loads both cores.

afterAll(async () => {
  await upstream.close();
  await tables.stop();
});

const CREDIT_MICRO_USD = 75_000;

/** Runs one job of the test kind through the synthesized machine to its end. */
async function run(
  steps: readonly UpstreamStep[],
  limits: Partial<JobDriver> = {},
  extra: { readonly job?: Partial<JobRecord>; readonly notify?: JobNotifyDeps } = {},
): Promise<{ outcome: RunOutcome; job: JobRecord | undefined; accountId: string; polls: number }> {
  const driver = testJobDriver(upstream.url, limits);
  const deps = () => stepDeps([driver]);
  const job = testJobRecord({ accountId: `acct-${++accounts}`, ...extra.job });
  upstream.script(job.upstreamJobId, steps);
  await createJob(job);
  const runner = new MachineRunner({
    definition: poller.definition,
    taskHandlers: {
      [poller.pollArn]: (input) => pollJob(input as never, deps()),
      [poller.markFailedArn]: (input) => failJob(input as never, deps()),
      [poller.notifyArn]: (input) => notifyJob(input as never, extra.notify ?? notifyDeps()),
    },
    waitMs: 5,
  });
  const outcome = await runner.run(jobExecutionInput(job, driver)).outcome;
  return {
    outcome,
    job: await getOwnedJob(job.accountId, job.jobId),
    accountId: job.accountId,
    polls: upstream.polls(job.upstreamJobId),
  };
}

test('success: polls until the upstream is done; the job holds the result and is metered once', async () => {
  const { outcome, job, accountId, polls } = await run([
    { body: { status: 'queued' } },
    { body: { status: 'running' } },
    { body: { status: 'running' } },
    { body: { status: 'done', url: 'https://cdn.example/out.png' } },
  ]);
  expect(outcome.status).toBe('SUCCEEDED');
  expect(polls).toBe(4);
  expect(job).toMatchObject({ phase: 'succeeded', result: { url: 'https://cdn.example/out.png' }, polls: 3 });
  expect(await meteredFor(accountId)).toEqual({ requests: 1, costMicroUsd: 2 * CREDIT_MICRO_USD });
});

test('failure: a job that fails upstream ends the execution normally, the job failed with its error', async () => {
  const { outcome, job, accountId } = await run([
    { body: { status: 'running' } },
    { body: { status: 'error', message: 'no garment found' } },
  ]);
  expect(outcome.status).toBe('SUCCEEDED');
  expect(job).toMatchObject({ phase: 'failed', error: { name: 'upstream_failed', message: 'no garment found' } });
  expect(await meteredFor(accountId)).toEqual({ requests: 1, costMicroUsd: 0 });
});

test('timeout by attempts: after maxPolls polls the machine marks the job failed and fails', async () => {
  const { outcome, job, polls, accountId } = await run([{ body: { status: 'running' } }], { maxPolls: 3 });
  expect(outcome).toMatchObject({ status: 'FAILED', error: 'Job.Failed' });
  expect(polls).toBe(3);
  expect(job).toMatchObject({ phase: 'failed', error: { name: 'Job.AttemptsExhausted' } });
  expect(await meteredFor(accountId)).toEqual({ requests: 1, costMicroUsd: 0 });
});

test('timeout by total time: past the deadline the poll is caught, not retried, and the job marked failed', async () => {
  // A deadline of 0 s: the first poll is already late.
  const { outcome, job, polls } = await run([{ body: { status: 'running' } }], { maxWaitSeconds: 0 });
  expect(outcome).toMatchObject({ status: 'FAILED', error: 'Job.Failed' });
  expect(polls).toBe(0);
  expect(job).toMatchObject({ phase: 'failed', error: { name: 'Job.TimedOut' } });
});

test('upstream error: transient failures are retried with backoff, then caught and the job marked failed', async () => {
  const { outcome, job, polls, accountId } = await run([{ status: 503, body: { status: 'overloaded' } }]);
  expect(outcome).toMatchObject({ status: 'FAILED', error: 'Job.Failed' });
  // The first try and the retrier's five retries.
  expect(polls).toBe(6);
  expect(job).toMatchObject({ phase: 'failed', error: { name: 'Job.UpstreamTransient', message: 'upstream 503' } });
  expect(await meteredFor(accountId)).toEqual({ requests: 1, costMicroUsd: 0 });
});

test('upstream error that clears: a retried poll goes on and the job succeeds', async () => {
  const { outcome, job } = await run([
    { status: 503, body: { status: 'overloaded' } },
    { status: 429, body: { status: 'slow down' } },
    { body: { status: 'done', url: 'u' } },
  ]);
  expect(outcome.status).toBe('SUCCEEDED');
  expect(job?.phase).toBe('succeeded');
});

describe('the Notify step: a webhook delivery after the job ends, retried, never changing the job', () => {
  /** A receiver answering each attempt with the next status (the last one for every further attempt). */
  function receiver(statuses: readonly number[]) {
    const attempts: { id: string; signature: string }[] = [];
    const deps = notifyDeps({
      views: { [TEST_KIND]: { type: 'test', data: async (job) => ({ id: job.jobId }) } },
      deliver: async ({ headers }): Promise<DeliveryAnswer> => {
        attempts.push({ id: headers['webhook-id']!, signature: headers['webhook-signature']! });
        return { kind: 'answered', status: statuses[Math.min(attempts.length, statuses.length) - 1]! };
      },
    });
    return { attempts, deps };
  }

  test('a receiver failing twice: three attempts under one webhook-id, then delivered', async () => {
    const hook = receiver([500, 503, 200]);
    const { outcome, job } = await run(
      [{ body: { status: 'done', url: 'u' } }],
      {},
      {
        job: { webhookUrl: 'https://hooks.example.com/a' },
        notify: hook.deps,
      },
    );
    expect(outcome.status).toBe('SUCCEEDED');
    expect(job).toMatchObject({ phase: 'succeeded', webhook: { status: 'delivered', attempts: 3, lastStatus: 200 } });
    expect(hook.attempts.map((attempt) => attempt.id)).toEqual(Array(3).fill(`${job!.jobId}.test.completed`));
  });

  test('a receiver that never accepts: six attempts, then recorded failed; the job and execution end as they would', async () => {
    const hook = receiver([500]);
    const { outcome, job } = await run(
      [{ body: { status: 'done', url: 'u' } }],
      {},
      {
        job: { webhookUrl: 'https://hooks.example.com/b' },
        notify: hook.deps,
      },
    );
    expect(outcome.status).toBe('SUCCEEDED');
    expect(hook.attempts).toHaveLength(1 + WEBHOOK_RETRY.MaxAttempts);
    expect(job).toMatchObject({
      phase: 'succeeded',
      result: { url: 'u' },
      webhook: { status: 'failed', attempts: 6, lastStatus: 500 },
    });
  });

  test('a job ended through MarkFailed is notified too, and its execution still fails', async () => {
    const hook = receiver([200]);
    const { outcome, job } = await run(
      [{ body: { status: 'running' } }],
      { maxPolls: 2 },
      {
        job: { webhookUrl: 'https://hooks.example.com/c' },
        notify: hook.deps,
      },
    );
    expect(outcome).toMatchObject({ status: 'FAILED', error: 'Job.Failed' });
    expect(job).toMatchObject({ phase: 'failed', webhook: { status: 'delivered', attempts: 1 } });
    expect(hook.attempts.map((attempt) => attempt.id)).toEqual([`${job!.jobId}.test.failed`]);
  });
});
