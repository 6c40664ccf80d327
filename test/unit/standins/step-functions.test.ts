import { DescribeExecutionCommand, ListExecutionsCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobExecutionInput } from '../../../lambdas/jobs/job-execution.js';
import { createJob, getOwnedJob } from '../../../lambdas/jobs/job-repository.js';
import { notifyJob } from '../../../lambdas/jobs/notify-step.js';
import { failJob, pollJob } from '../../../lambdas/jobs/poll-step.js';
import { jobPollerDefinition } from '../../../lib/constructs/job-poller-definition.js';
import {
  startStepFunctionsStandIn,
  type StepFunctionsStandIn,
} from '../../../local/standins/step-functions-standin.js';
import {
  meteredFor,
  startJobTables,
  startJobUpstream,
  notifyDeps,
  stepDeps,
  testJobDriver,
  testJobRecord,
  type JobUpstream,
} from '../../support/job-upstream.js';

/** The Step Functions stand-in through the AWS SDK client, running the job poller over real steps. */
const MACHINE = 'arn:aws:states:us-east-1:000000000000:stateMachine:jobs';
const POLL = 'arn:aws:lambda:us-east-1:000000000000:function:job-poll';
const MARK_FAILED = 'arn:aws:lambda:us-east-1:000000000000:function:job-mark-failed';
const NOTIFY = 'arn:aws:lambda:us-east-1:000000000000:function:job-notify';

let tables: { stop(): Promise<void> };
let upstream: JobUpstream;
let dataDir: string;
let standIn: StepFunctionsStandIn | undefined;
let client: SFNClient;

async function start(): Promise<void> {
  const driver = testJobDriver(upstream.url);
  standIn = await startStepFunctionsStandIn({
    dataDir,
    waitMs: 20,
    stateMachines: [
      {
        arn: MACHINE,
        definition: jobPollerDefinition(
          { poll: POLL, markFailed: MARK_FAILED, notify: NOTIFY },
          { timeoutSeconds: 300 },
        ),
        taskHandlers: {
          [POLL]: (input) => pollJob(input as never, stepDeps([driver])),
          [MARK_FAILED]: (input) => failJob(input as never, stepDeps([driver])),
          [NOTIFY]: (input) => notifyJob(input as never, notifyDeps()),
        },
      },
    ],
  });
  client = new SFNClient({
    endpoint: standIn.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
}

async function stop(): Promise<void> {
  client?.destroy();
  await standIn?.close();
  standIn = undefined;
}

beforeAll(async () => {
  tables = await startJobTables('sfn-standin');
  upstream = await startJobUpstream();
}, 30_000);

afterAll(async () => {
  await upstream.close();
  await tables.stop();
});

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sfn-standin-'));
  await start();
});

afterEach(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function submit(accountId: string, steps: Parameters<JobUpstream['script']>[1]) {
  const job = testJobRecord({ accountId });
  upstream.script(job.upstreamJobId, steps);
  await createJob(job);
  const input = JSON.stringify(jobExecutionInput(job, testJobDriver(upstream.url)));
  return { job, input };
}

test('starts, describes and lists an execution that runs the poller to the job end', async () => {
  const { job, input } = await submit('acct-sdk', [
    { body: { status: 'running' } },
    { body: { status: 'done', url: 'u' } },
  ]);
  const started = await client.send(new StartExecutionCommand({ stateMachineArn: MACHINE, name: job.jobId, input }));
  expect(started.executionArn).toBe(`arn:aws:states:us-east-1:000000000000:execution:jobs:${job.jobId}`);
  expect(started.startDate).toBeInstanceOf(Date);
  await standIn!.idle();
  const described = await client.send(new DescribeExecutionCommand({ executionArn: started.executionArn }));
  expect(described).toMatchObject({ status: 'SUCCEEDED', name: job.jobId, input, stateMachineArn: MACHINE });
  const listed = await client.send(new ListExecutionsCommand({ stateMachineArn: MACHINE }));
  expect(listed.executions?.map((e) => [e.name, e.status])).toEqual([[job.jobId, 'SUCCEEDED']]);
  expect((await getOwnedJob(job.accountId, job.jobId))?.phase).toBe('succeeded');
});

test('a repeated start of a running job is the same execution; after it ended the name is refused', async () => {
  const { job, input } = await submit('acct-dup', [{ body: { status: 'running' } }, { body: { status: 'done' } }]);
  const first = await client.send(new StartExecutionCommand({ stateMachineArn: MACHINE, name: job.jobId, input }));
  const again = await client.send(new StartExecutionCommand({ stateMachineArn: MACHINE, name: job.jobId, input }));
  expect(again.executionArn).toBe(first.executionArn);
  await standIn!.idle();
  await expect(
    client.send(new StartExecutionCommand({ stateMachineArn: MACHINE, name: job.jobId, input })),
  ).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
  expect(await meteredFor('acct-dup')).toMatchObject({ requests: 1 });
});

test('unknown machines, executions, bad names and bad input are named errors', async () => {
  const start = (fields: Partial<{ stateMachineArn: string; name: string; input: string }>) =>
    client.send(new StartExecutionCommand({ stateMachineArn: MACHINE, input: '{}', ...fields }));
  await expect(start({ stateMachineArn: `${MACHINE}-nope` })).rejects.toMatchObject({
    name: 'StateMachineDoesNotExist',
  });
  await expect(start({ name: 'has space' })).rejects.toMatchObject({ name: 'InvalidName' });
  await expect(start({ input: '{not json' })).rejects.toMatchObject({ name: 'InvalidExecutionInput' });
  await expect(
    client.send(new DescribeExecutionCommand({ executionArn: `${MACHINE.replace('stateMachine', 'execution')}:none` })),
  ).rejects.toMatchObject({ name: 'ExecutionDoesNotExist' });
});

test('an execution running when the stand-in stops resumes at the next start; the job completes, metered once', async () => {
  const steps = [...Array(6).fill({ body: { status: 'running' } }), { body: { status: 'done', url: 'u' } }];
  const { job, input } = await submit('acct-restart', steps);
  const { executionArn } = await client.send(
    new StartExecutionCommand({ stateMachineArn: MACHINE, name: job.jobId, input }),
  );
  while (upstream.polls(job.upstreamJobId) < 2) await new Promise((done) => setTimeout(done, 10));
  await stop();
  const pollsAtStop = upstream.polls(job.upstreamJobId);
  expect((await getOwnedJob(job.accountId, job.jobId))?.phase).not.toBe('succeeded');
  await new Promise((done) => setTimeout(done, 100));
  // Stopped means stopped: no task call ran while it was down.
  expect(upstream.polls(job.upstreamJobId)).toBe(pollsAtStop);

  await start();
  await standIn!.idle();
  const described = await client.send(new DescribeExecutionCommand({ executionArn }));
  expect(described.status).toBe('SUCCEEDED');
  expect(await getOwnedJob(job.accountId, job.jobId)).toMatchObject({ phase: 'succeeded', result: { url: 'u' } });
  expect(await meteredFor('acct-restart')).toEqual({ requests: 1, costMicroUsd: 2 * 75_000 });
});
