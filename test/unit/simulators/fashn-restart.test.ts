import { jest } from '@jest/globals';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFashnSimulator } from '../../../local/simulators/fashn.js';
import {
  startSimulator,
  type RunningSimulator,
  type SimulatorStartOptions,
} from '../../../local/simulators/harness.js';

/**
 * The FASHN fake started over a state folder outlives a restart: a prediction's walk goes on
 * where it was, and a completed prediction's output URL is still served. Each start builds a
 * new fake, so nothing survives in memory: only the folder carries it.
 */
const KEY = { authorization: 'Bearer sim-local-key' };
const clock = 1_700_000_000_000;
let stateDir: string;
let sim: RunningSimulator | undefined;

beforeEach(() => {
  stateDir = mkdtempSync(join(tmpdir(), 'fashn-state-'));
});
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  jest.restoreAllMocks();
  rmSync(stateDir, { recursive: true, force: true });
});

const start = (port = 0, options: SimulatorStartOptions = { stateDir }) =>
  startSimulator(createFashnSimulator({ now: () => clock }), port, options);

async function run(prompt: string): Promise<string> {
  const response = await fetch(`${sim!.url}/v1/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...KEY },
    body: JSON.stringify({ model_name: 'model-create', inputs: { prompt } }),
  });
  return ((await response.json()) as { id: string }).id;
}

async function poll(id: string) {
  const response = await fetch(`${sim!.url}/v1/status/${id}`, { headers: KEY });
  return { status: response.status, body: (await response.json()) as { status?: string; output?: string[] | null } };
}

async function restart(options: SimulatorStartOptions = { stateDir }): Promise<void> {
  const port = Number(new URL(sim!.url).port);
  await sim!.close();
  // Lets this process's pooled connections to the old server see it close first.
  await new Promise((r) => setTimeout(r, 50));
  sim = await start(port, options);
}

test('a prediction walks on after a restart, and a completed one still serves its output', async () => {
  sim = await start();
  const walking = await run('a model');
  expect([(await poll(walking)).body.status, (await poll(walking)).body.status]).toEqual(['starting', 'in_queue']);
  const done = await run('a model [sim:polls=0]');
  const completed = await poll(done);
  expect(completed.body.status).toBe('completed');
  const [output] = completed.body.output!;

  await restart();

  expect((await poll(walking)).body.status).toBe('processing');
  expect((await poll(walking)).body.status).toBe('completed');
  expect((await poll(done)).body.output).toEqual([output]);
  const served = await fetch(output!);
  expect(served.status).toBe(200);
  expect(served.headers.get('content-type')).toBe('image/png');
});

test('a long input is left out of the snapshot, the prediction still served', async () => {
  sim = await start();
  const id = await run(`a model ${'x'.repeat(5_000)} [sim:polls=0]`);
  await restart();
  const stored = readFileSync(join(stateDir, 'fashn.json'), 'utf8');
  expect(stored).toContain(id);
  expect(stored.length).toBeLessThan(5_000);
  expect((await poll(id)).body.status).toBe('completed');
});

test('a corrupt state file starts the fake empty, with a warning', async () => {
  writeFileSync(join(stateDir, 'fashn.json'), 'not json');
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  sim = await start();
  expect(warn).toHaveBeenCalledWith(expect.stringContaining('fashn.json is unreadable'));
  expect((await poll('00000000-0000-0000-0000-000000000000')).status).toBe(404);
  expect((await poll(await run('a model'))).body.status).toBe('starting');
});

test('without a folder nothing is written, and a new fake knows nothing of the old one', async () => {
  const cwd = process.cwd();
  process.chdir(stateDir);
  try {
    sim = await start(0, {});
    const id = await run('a model');
    await poll(id);
    await restart({});
    expect((await poll(id)).status).toBe(404);
    await new Promise((r) => setTimeout(r, 400));
    expect(readdirSync(stateDir)).toEqual([]);
  } finally {
    process.chdir(cwd);
  }
});
