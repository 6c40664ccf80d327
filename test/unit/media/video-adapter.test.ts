import { unitCostMicroUsd } from '../../../lambdas/catalog/unit-prices.js';
import { send } from '../../../lambdas/providers/http-transport.js';
import { downloadLinkFor, REFRESH_MARGIN_MS } from '../../../lambdas/media/video-download-link.js';
import { DOWNLOAD_URL_TTL_MS, retrieveVideoFile } from '../../../lambdas/media/video-file.js';
import { parseVideoRequest } from '../../../lambdas/media/video-request.js';
import { queryVideo, submitVideo, type VideoTaskState } from '../../../lambdas/media/video-task.js';
import { videoWorkOf } from '../../../lambdas/media/video-usage.js';
import { UpstreamError } from '../../../lambdas/providers/upstream-failure.js';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';
import { minimaxSimulator } from '../../../local/simulators/minimax.js';

/**
 * The video adapter against the MiniMax fake on loopback: submit, the status walk translated
 * to the interface's four statuses, failures (in the task and of the call), the file's download
 * link and the policy that refreshes it.
 */
let sim: RunningSimulator;
let endpoint: { baseUrl: string; apiKey: string };
beforeAll(async () => {
  sim = await startSimulator(minimaxSimulator);
  endpoint = { baseUrl: `${sim.url}/v1`, apiKey: 'sim-local-key' };
});
afterAll(() => sim.close());
afterEach(() => fetch(`${sim.url}/__sim/faults`, { method: 'DELETE' }));

const deps = () => ({ send, signal: AbortSignal.timeout(5_000) });
const submit = (body: Record<string, unknown>) => submitVideo(endpoint, parseVideoRequest(body), deps());
const query = (taskId: string) => queryVideo(endpoint, taskId, deps());
const inject = (fault: string) => fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault }) });

async function pollUntilDone(taskId: string): Promise<VideoTaskState[]> {
  const seen: VideoTaskState[] = [];
  for (let i = 0; i < 10 && !['Success', 'Fail'].includes(seen.at(-1)?.status ?? ''); i++)
    seen.push(await query(taskId));
  return seen;
}

const failureOf = async (promise: Promise<unknown>) => {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(UpstreamError);
  return (error as UpstreamError).failure;
};

test('a submitted task walks Queueing → Processing → Success (Preparing read as Queueing), with its file and size', async () => {
  const taskId = await submit({ prompt: '[pan left] a cat', resolution: '720P', duration: 10 });
  expect(taskId).toMatch(/^\d+$/);
  const sent = sim.requests.at(-1)!;
  expect(sent.body).toEqual({
    model: 'MiniMax-Hailuo-2.3',
    prompt: '[Pan left] a cat',
    duration: 10,
    resolution: '768P',
    prompt_optimizer: true,
  });
  const seen = await pollUntilDone(taskId);
  expect(seen.map((state) => state.status)).toEqual(['Queueing', 'Queueing', 'Processing', 'Success']);
  expect(seen.at(-1)).toEqual({ status: 'Success', fileId: expect.stringMatching(/^\d+$/), width: 1366, height: 768 });
});

test.each([1026, 1027])('a task flagged with %i ends Fail, classified content_filter', async (code) => {
  const taskId = await submit({ prompt: `a cat [sim:fail=${code}] [sim:polls=2]` });
  const seen = await pollUntilDone(taskId);
  expect(seen.map((state) => state.status)).toEqual(['Queueing', 'Fail']);
  expect(seen[1]!.failure).toMatchObject({ kind: 'content_filter', providerCode: String(code) });
});

test('Fail and Failed both end the task; an unknown status is work in progress', async () => {
  const plain = await submit({ prompt: 'a cat [sim:fail] [sim:polls=1]' });
  expect(await query(plain)).toMatchObject({ status: 'Fail', failure: { kind: 'overload' } });
  const scripted = await submit({ prompt: 'a cat [sim:walk=Preparing,Unknown,Failed]' });
  expect((await pollUntilDone(scripted)).map((state) => state.status)).toEqual(['Queueing', 'Processing', 'Fail']);
});

test('a task MiniMax does not know for this key ends Fail', async () => {
  const state = await query('123456789012345');
  expect(state).toMatchObject({ status: 'Fail', failure: { kind: 'bad_request', providerCode: '2013' } });
});

test('in-band business errors of a call are thrown, classified: 1002 rate_limit, 1004 auth', async () => {
  const taskId = await submit({ prompt: 'a cat' });
  await inject('error:1002');
  expect(await failureOf(query(taskId))).toMatchObject({ kind: 'rate_limit', status: 200, providerCode: '1002' });
  await inject('error:1004');
  expect(await failureOf(submit({ prompt: 'a cat' }))).toMatchObject({ kind: 'auth', providerCode: '1004' });
  // The task is still there, untouched by the refused poll.
  expect((await query(taskId)).status).toBe('Queueing');
});

test('a refused submit is a bad_request; a wrong key is auth', async () => {
  const tooLong = parseVideoRequest({ prompt: 'a cat', duration: 10, resolution: '768P' });
  // A request the adapter would have refused, sent anyway: MiniMax's 2013 is thrown as bad_request.
  const failure = await failureOf(submitVideo(endpoint, { ...tooLong, resolution: '1080P' }, deps()));
  expect(failure).toMatchObject({ kind: 'bad_request', providerCode: '2013' });
  const wrongKey = submitVideo({ ...endpoint, apiKey: 'invalid-key' }, tooLong, deps());
  expect(await failureOf(wrongKey)).toMatchObject({ kind: 'auth', providerCode: '2049' });
});

describe('the download link', () => {
  async function finishedFile(prompt: string) {
    const taskId = await submit({ prompt: `${prompt} [sim:polls=1]` });
    return (await query(taskId)).fileId!;
  }

  test('retrieveVideoFile answers a working link and an expiry one hour from the call', async () => {
    const fileId = await finishedFile('a cat');
    const before = Date.now();
    const link = await retrieveVideoFile(endpoint, fileId, deps());
    expect(link.expiresAt).toBeGreaterThanOrEqual(before + DOWNLOAD_URL_TTL_MS);
    expect(link.expiresAt).toBeLessThanOrEqual(Date.now() + DOWNLOAD_URL_TTL_MS);
    const download = await fetch(link.downloadUrl);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).toString('ascii', 4, 8)).toBe('ftyp');
  });

  test('a status read after the stored link expired gets a fresh, working one', async () => {
    const fileId = await finishedFile('a cat [sim:url_ttl_ms=100]');
    const retrieve = (id: string) => retrieveVideoFile(endpoint, id, deps());
    const stored = await retrieve(fileId);
    await new Promise((done) => setTimeout(done, 150));
    expect((await fetch(stored.downloadUrl)).status).toBe(403);
    // The adapter counts MiniMax's documented hour: an hour later, the record's link is due.
    const now = stored.expiresAt;
    const link = await downloadLinkFor(
      { fileId, downloadUrl: stored.downloadUrl, downloadUrlExpiresAt: stored.expiresAt },
      now,
      { retrieve },
    );
    expect(link.refreshed).toBe(true);
    expect(link.downloadUrl).not.toBe(stored.downloadUrl);
    expect((await fetch(link.downloadUrl)).status).toBe(200);
  });
});

test('downloadLinkFor keeps a stored link with the margin left, and fetches one when near expiry or absent', async () => {
  const fresh = { downloadUrl: 'https://cdn.test/fresh', expiresAt: 5_000_000 };
  const asked: string[] = [];
  const retrieve = async (fileId: string) => (asked.push(fileId), fresh);
  const stored = { fileId: '7', downloadUrl: 'https://cdn.test/stored', downloadUrlExpiresAt: 1_000_000 };
  const now = stored.downloadUrlExpiresAt - REFRESH_MARGIN_MS;
  expect(await downloadLinkFor(stored, now, { retrieve })).toEqual({
    downloadUrl: 'https://cdn.test/stored',
    expiresAt: 1_000_000,
    refreshed: false,
  });
  expect(asked).toEqual([]);
  expect(await downloadLinkFor(stored, now + 1, { retrieve })).toEqual({ ...fresh, refreshed: true });
  expect(await downloadLinkFor({ fileId: '8' }, now, { retrieve })).toEqual({ ...fresh, refreshed: true });
  expect(asked).toEqual(['7', '8']);
});

test('a finished video is metered in seconds at its model and resolution’s price; a failed one counts 0', () => {
  for (const body of [
    { prompt: 'p' },
    { prompt: 'p', duration: 10 },
    { prompt: 'p', model: 'minimax-video-2.3-Fast', first_frame_image: 'https://a.example.com/i.png' },
    {
      prompt: 'p',
      model: 'minimax-video-2.3-Fast',
      first_frame_image: 'https://a.example.com/i.png',
      resolution: '768P',
    },
  ]) {
    const request = parseVideoRequest(body);
    const work = videoWorkOf(request, { status: 'Success', fileId: '1' });
    expect(work).toMatchObject({ provider: 'minimax', unit: 'seconds', quantity: request.duration, outcome: 'ok' });
    expect(unitCostMicroUsd(work.model, work.unit, work.quantity).priced).toBe(true);
  }
  expect(videoWorkOf(parseVideoRequest({ prompt: 'p' }), { status: 'Success', fileId: '1' }).model).toBe(
    'minimax/MiniMax-Hailuo-2.3/1080P',
  );
  const failed = videoWorkOf(parseVideoRequest({ prompt: 'p' }), {
    status: 'Fail',
    failure: { kind: 'content_filter', message: 'flagged', status: 200 },
  });
  expect(failed).toMatchObject({ quantity: 0, outcome: 'content_filter', status: 200 });
});
