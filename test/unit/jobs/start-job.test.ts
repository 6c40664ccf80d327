import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobDrivers } from '../../../lambdas/jobs/job-driver-registry.js';
import { createJob, endJob, getOwnedJob } from '../../../lambdas/jobs/job-repository.js';
import { notifyJob } from '../../../lambdas/jobs/notify-step.js';
import { failJob, pollJob } from '../../../lambdas/jobs/poll-step.js';
import { startJob, type NewJob } from '../../../lambdas/jobs/start-job.js';
import { jobExecutionStarter } from '../../../lambdas/jobs/poller-executions.js';
import { jobPollerDefinition } from '../../../lib/constructs/job-poller-definition.js';
import {
  startStepFunctionsStandIn,
  type StepFunctionsStandIn,
} from '../../../local/standins/step-functions-standin.js';
import {
  startJobTables,
  startJobUpstream,
  notifyDeps,
  stepDeps,
  testJobDriver,
  TEST_KIND,
  type JobUpstream,
} from '../../support/job-upstream.js';

/** startJob over the real repository and the Step Functions stand-in, reached through the SDK endpoint override. */
const MACHINE = 'arn:aws:states:us-east-1:000000000000:stateMachine:jobs';
const POLL = 'arn:aws:lambda:us-east-1:000000000000:function:poll';
const MARK_FAILED = 'arn:aws:lambda:us-east-1:000000000000:function:mark-failed';
const NOTIFY = 'arn:aws:lambda:us-east-1:000000000000:function:notify';

let tables: { stop(): Promise<void> };
let upstream: JobUpstream;
let standIn: StepFunctionsStandIn;
let dataDir: string;

beforeAll(async () => {
  tables = await startJobTables('start-job');
  upstream = await startJobUpstream();
  dataDir = mkdtempSync(join(tmpdir(), 'start-job-'));
  const driver = testJobDriver(upstream.url);
  standIn = await startStepFunctionsStandIn({
    dataDir,
    waitMs: 10,
    stateMachines: [
      {
        arn: MACHINE,
        definition: jobPollerDefinition(
          { poll: POLL, markFailed: MARK_FAILED, notify: NOTIFY },
          { timeoutSeconds: 60 },
        ),
        taskHandlers: {
          [POLL]: (input) => pollJob(input as never, stepDeps([driver])),
          [MARK_FAILED]: (input) => failJob(input as never, stepDeps([driver])),
          [NOTIFY]: (input) => notifyJob(input as never, notifyDeps()),
        },
      },
    ],
  });
  // The SDK's own endpoint override, as the local runtime sets it.
  Object.assign(process.env, { AWS_ENDPOINT_URL_SFN: standIn.url });
}, 30_000);

afterAll(async () => {
  await standIn.close();
  await upstream.close();
  await tables.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const submitted = (upstreamJobId: string): NewJob => ({
  kind: TEST_KIND,
  accountId: 'acct-start',
  requestId: `req-${upstreamJobId}`,
  route: 'test-jobs',
  provider: 'fashn',
  model: 'tryon-v1.6',
  upstreamJobId,
  details: { credits: 1 },
});

/** The deployment's starter, for the configured state machine. */
const startJobExecution = jobExecutionStarter(MACHINE);

const deps = (startExecution = startJobExecution) => ({
  drivers: jobDrivers([testJobDriver(upstream.url)]),
  jobs: { createJob, endJob },
  startExecution,
  now: () => new Date(),
});

test('records the job queued and starts its poller, which runs it to the end', async () => {
  upstream.script('up-start', [{ body: { status: 'done', url: 'u' } }]);
  const job = await startJob(submitted('up-start'), deps());
  expect(job).toMatchObject({ phase: 'queued', polls: 0, jobId: expect.stringMatching(/^job_[a-z2-7]{24}$/) });
  await standIn.idle();
  expect(await getOwnedJob('acct-start', job.jobId)).toMatchObject({ phase: 'succeeded', result: { url: 'u' } });
  // A repeated start of the same job's poller is not an error and starts nothing new.
  await expect(startJobExecution(job.jobId, {} as never)).resolves.toBeUndefined();
});

test('a poller that cannot be started ends the job failed (no record waits forever) and the error surfaces', async () => {
  const refused = () => Promise.reject(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
  let jobId = '';
  const ids = () => (jobId = `job_notstarted${Date.now()}`);
  await expect(startJob(submitted('up-never'), { ...deps(refused), jobId: ids })).rejects.toThrow('throttled');
  expect(await getOwnedJob('acct-start', jobId)).toMatchObject({
    phase: 'failed',
    error: { name: 'Job.NotStarted', message: 'the job poller did not start: throttled' },
  });
});

test('a kind without a driver is refused before anything is written', async () => {
  await expect(startJob({ ...submitted('up-x'), kind: 'unknown' }, deps())).rejects.toThrow('no driver');
});
