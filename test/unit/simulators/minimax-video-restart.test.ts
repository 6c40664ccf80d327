import { jest } from '@jest/globals';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';
import { minimaxSimulator } from '../../../local/simulators/minimax.js';
import { MINIMAX_VIDEO_STATE } from '../../../local/simulators/minimax-video.js';

/**
 * The MiniMax fake started over a state folder outlives a restart as MiniMax itself outlives
 * a gateway's: a task's walk goes on where it was, a finished task's file is still retrieved,
 * and a download link handed out before still downloads. The video stores are module-wide,
 * so between the two starts the test empties them, as a new process starts empty.
 */
const KEY = 'sim-local-key';
let stateDir: string;
let sim: RunningSimulator | undefined;

beforeEach(() => {
  stateDir = mkdtempSync(join(tmpdir(), 'minimax-state-'));
});
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  jest.restoreAllMocks();
  rmSync(stateDir, { recursive: true, force: true });
});

async function call(path: string, body?: unknown) {
  const response = await fetch(`${sim!.url}/v1${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as any;
}

const create = async (prompt: string) =>
  (await call('/video_generation', { model: 'MiniMax-Hailuo-2.3', prompt })).task_id as string;
const statusOf = async (taskId: string) => (await call(`/query/video_generation?task_id=${taskId}`)).status as string;

/** Closes the fake and starts it again over the same folder and port, its memory emptied. */
async function restart(): Promise<void> {
  const port = Number(new URL(sim!.url).port);
  await sim!.close();
  // Lets this process's pooled connections to the old server see it close first.
  await new Promise((r) => setTimeout(r, 50));
  MINIMAX_VIDEO_STATE.restore(undefined);
  sim = await startSimulator(minimaxSimulator, port, { stateDir });
}

test('a task walks on after a restart, and its file and download link still serve', async () => {
  sim = await startSimulator(minimaxSimulator, 0, { stateDir });
  const walking = await create('a cat');
  expect([await statusOf(walking), await statusOf(walking)]).toEqual(['Preparing', 'Queueing']);
  const done = await create('a dog [sim:polls=1]');
  const answer = await call(`/query/video_generation?task_id=${done}`);
  expect(answer.status).toBe('Success');
  const link = (await call(`/files/retrieve?file_id=${answer.file_id}`)).file.download_url as string;

  await restart();

  expect(await statusOf(walking)).toBe('Processing');
  expect(await statusOf(walking)).toBe('Success');
  const retrieved = await call(`/files/retrieve?file_id=${answer.file_id}`);
  expect(retrieved.base_resp.status_code).toBe(0);
  expect(String(retrieved.file.file_id)).toBe(answer.file_id);
  const download = await fetch(link);
  expect(download.status).toBe(200);
  expect(download.headers.get('content-type')).toBe('video/mp4');
});

test('a change is written within the debounce window, without a stop', async () => {
  sim = await startSimulator(minimaxSimulator, 0, { stateDir });
  const taskId = await create('a bird');
  await statusOf(taskId);
  const file = join(stateDir, 'minimax.json');
  for (let waited = 0; !existsSync(file) && waited < 5_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
  expect(existsSync(file)).toBe(true);
});

test('a corrupt state file starts the fake empty, with a warning', async () => {
  writeFileSync(join(stateDir, 'minimax.json'), '{"version":1,"state":{"tasks":[{"taskId":');
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  sim = await startSimulator(minimaxSimulator, 0, { stateDir });
  expect(warn).toHaveBeenCalledWith(expect.stringContaining('minimax.json is unreadable'));
  expect(MINIMAX_VIDEO_STATE.snapshot()).toEqual({ tasks: [], files: expect.objectContaining({ files: [] }) });
  expect(await statusOf(await create('a fish'))).toBe('Preparing');
});

test('a state file of the wrong shape starts the fake empty too', async () => {
  writeFileSync(join(stateDir, 'minimax.json'), JSON.stringify({ version: 1, state: { tasks: 'many' } }));
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  sim = await startSimulator(minimaxSimulator, 0, { stateDir });
  expect(warn).toHaveBeenCalledTimes(1);
  expect(MINIMAX_VIDEO_STATE.snapshot()).toEqual({ tasks: [], files: expect.objectContaining({ files: [] }) });
});

test('without a folder nothing is written', async () => {
  const cwd = process.cwd();
  process.chdir(stateDir);
  try {
    sim = await startSimulator(minimaxSimulator);
    const taskId = await create('a horse [sim:polls=1]');
    await statusOf(taskId);
    await sim.close();
    sim = undefined;
    await new Promise((r) => setTimeout(r, 400));
    expect(readdirSync(stateDir)).toEqual([]);
  } finally {
    process.chdir(cwd);
  }
});
