import { bearer, call, type Answer } from './support/http.js';
import { accountUsage } from './support/ledger-entries.js';
import { useGateway } from './support/gateway-fixture.js';

/**
 * A video job and a fashion prediction submitted over HTTP, the local runtime stopped (SIGTERM,
 * as Ctrl-C or a service manager does) while their pollers are mid-walk, and started again over
 * the same folder: each job completes, with a download link or outputs that answer, and is
 * metered exactly once (issue 11's acceptance; the stand-in-level restart is in
 * test/unit/standins/step-functions.test.ts).
 */
const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'WARN', GATEWAY_JOB_WAIT_MS: '250' },
  account: 'restart',
  key: { via: 'dashboard' },
});

const get = (path: string) => call(local.gateway.url(path), { headers: bearer(local.key) });

async function until(path: string, done: (answer: Answer) => boolean): Promise<Answer> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await get(path);
    if (done(answer) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('jobs polled when the runtime stops complete after it starts again, metered once', async () => {
  const video = await call(local.gateway.url('/api/v1/media/video'), {
    headers: bearer(local.key),
    body: { prompt: 'A long crane shot [sim:polls=12]' },
  });
  const fashion = await call(local.gateway.url('/api/v1/fashion/run'), {
    headers: bearer(local.key),
    body: { model_name: 'model-create', inputs: { prompt: 'a model in wool [sim:polls=12]' } },
  });
  expect([video.status, fashion.status]).toEqual([200, 200]);
  const videoPath = `/api/v1/media/video/status?task_id=${video.body.data.task_id}`;
  const fashionPath = `/api/v1/fashion/status/${fashion.body.data.prediction_id}`;
  // Mid-walk: both pollers have moved their jobs past the first status.
  expect((await until(videoPath, (a) => a.body.data.status === 'Processing')).body.data.status).toBe('Processing');
  expect((await until(fashionPath, (a) => a.body.data.status === 'in_queue')).body.data.status).toBe('in_queue');

  await local.gateway.restart();

  const videoDone = await until(
    videoPath,
    (a) => a.body.data.status !== 'Queueing' && a.body.data.status !== 'Processing',
  );
  expect(videoDone.body.data).toMatchObject({ status: 'Success', error: null });
  expect((await fetch(videoDone.body.data.download_url)).status).toBe(200);
  const fashionDone = await until(fashionPath, (a) => ['completed', 'failed'].includes(a.body.data.status));
  expect(fashionDone.body.data).toMatchObject({ status: 'completed', error: null });
  expect((await fetch(fashionDone.body.data.output[0])).status).toBe(200);

  // Exactly one ledger entry per job, under its submitting request, whatever replays the restart caused.
  const { ledger } = await accountUsage(local.gateway, local.account.accountId);
  const of = (answer: Answer) => ledger.filter((entry) => entry.requestId === answer.headers.get('x-request-id'));
  expect(of(video).map((entry) => [entry.model, (entry as any).quantity])).toEqual([
    ['minimax/MiniMax-Hailuo-2.3/1080P', 6],
  ]);
  expect(of(fashion).map((entry) => [entry.model, (entry as any).quantity])).toEqual([['fashn/credit', 3]]);
});
