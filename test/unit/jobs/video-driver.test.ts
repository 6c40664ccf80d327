import { videoJobDriver } from '../../../lambdas/media/video-job-driver.js';
import { isJobEnd, type JobProgress } from '../../../lambdas/jobs/job-driver.js';
import type { JobRecord } from '../../../lambdas/jobs/job-record.js';
import { send } from '../../../lambdas/providers/http-transport.js';
import { parseVideoRequest } from '../../../lambdas/media/video-request.js';
import { submitVideo } from '../../../lambdas/media/video-task.js';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';
import { minimaxSimulator } from '../../../local/simulators/minimax.js';

/** The video job kind against the MiniMax fake on loopback: the walk, the end, the bill. */
let sim: RunningSimulator;
const KEY = 'sim-local-key';
beforeAll(async () => {
  sim = await startSimulator(minimaxSimulator);
});
afterAll(() => sim.close());

// The platform's MiniMax endpoint, as a deployment gives the driver its configured one.
const deps = () => ({
  endpoint: async () => ({ baseUrl: `${sim.url}/v1`, apiKey: KEY }),
  send,
  signal: AbortSignal.timeout(5_000),
});

async function submitted(prompt: string): Promise<JobRecord> {
  const request = parseVideoRequest({ prompt });
  const taskId = await submitVideo({ baseUrl: `${sim.url}/v1`, apiKey: KEY }, request, deps());
  const at = new Date().toISOString();
  return {
    jobId: 'job_test',
    kind: 'video',
    accountId: 'acc_1',
    requestId: 'req_1',
    route: 'media-video-submit',
    provider: 'minimax',
    model: 'MiniMax-Hailuo-2.3',
    upstreamJobId: taskId,
    phase: 'queued',
    details: { ...request },
    createdAt: at,
    updatedAt: at,
    polls: 0,
    expiresAt: 0,
  };
}

async function pollToEnd(job: JobRecord): Promise<JobProgress[]> {
  const seen: JobProgress[] = [];
  for (let i = 0; i < 10; i++) {
    const progress = await videoJobDriver.poll(job, deps());
    seen.push(progress);
    if (isJobEnd(progress)) return seen;
  }
  throw new Error('the video task did not end in 10 polls');
}

test('a task walks queued, running, then succeeds with its file id; six seconds of 1080P are billed', async () => {
  const job = await submitted('A lighthouse at dusk [Push in]');
  const seen = await pollToEnd(job);
  expect(seen.map((p) => p.phase)).toEqual(['queued', 'queued', 'running', 'succeeded']);
  const end = seen.at(-1)!;
  expect(end).toMatchObject({ phase: 'succeeded', result: { file_id: expect.stringMatching(/^\d+$/) } });
  if (!isJobEnd(end)) throw new Error('not ended');
  expect(videoJobDriver.usage(job, end)).toMatchObject({
    model: 'minimax/MiniMax-Hailuo-2.3/1080P',
    unit: 'seconds',
    quantity: 6,
    outcome: 'ok',
  });
});

test('a task the upstream fails for sensitive content ends failed, named, and bills nothing', async () => {
  const job = await submitted('A storm [sim:fail=1026]');
  const end = (await pollToEnd(job)).at(-1)!;
  expect(end).toMatchObject({ phase: 'failed', error: { name: 'content_filter' } });
  if (!isJobEnd(end)) throw new Error('not ended');
  expect(videoJobDriver.usage(job, end)).toMatchObject({ quantity: 0, outcome: 'content_filter' });
});

test('an in-band rate limit on a poll is thrown as retryable, for the state machine to retry', async () => {
  const job = await submitted('A harbour');
  await fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault: 'error:1002' }) });
  await expect(videoJobDriver.poll(job, deps())).rejects.toMatchObject({ failure: { kind: 'rate_limit' } });
});
