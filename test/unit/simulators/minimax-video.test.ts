import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';
import { minimaxSimulator } from '../../../local/simulators/minimax.js';
import { MP4_TIMESCALE } from '../../../local/simulators/video-mp4.js';

/**
 * The MiniMax fake's video half over loopback HTTP (docs/upstreams.md §6.4 and the "MiniMax fake"
 * checklist): status walks over polls, failures, the duration/resolution matrix, key scoping,
 * expiring download links and the MP4 they serve.
 */
let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator(minimaxSimulator);
});
afterAll(() => sim.close());

const KEY = 'sim-local-key';

async function call(method: 'GET' | 'POST', path: string, body?: unknown, key = KEY) {
  const response = await fetch(`${sim.url}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const create = (body: Record<string, unknown>, key = KEY) =>
  call('POST', '/video_generation', { model: 'MiniMax-Hailuo-2.3', prompt: 'a cat', ...body }, key);
const query = (taskId: string, key = KEY) => call('GET', `/query/video_generation?task_id=${taskId}`, undefined, key);
const retrieve = (fileId: string | number, key = KEY) =>
  call('GET', `/files/retrieve?file_id=${fileId}`, undefined, key);
const codeOf = (answer: { body: any }) => answer.body.base_resp.status_code as number;

async function taskIdOf(body: Record<string, unknown>): Promise<string> {
  const created = await create(body);
  expect(codeOf(created)).toBe(0);
  return created.body.task_id as string;
}

async function walk(taskId: string, polls: number) {
  const seen = [];
  for (let i = 0; i < polls; i++) seen.push((await query(taskId)).body);
  return seen;
}

describe('POST /v1/video_generation', () => {
  it('answers a numeric-string task id', async () => {
    const created = await create({ duration: 10, resolution: '768P' });
    expect(created.status).toBe(200);
    expect(created.body.task_id).toMatch(/^\d{15}$/);
    expect(created.body.base_resp).toEqual({ status_code: 0, status_msg: 'success' });
  });

  it.each([
    ['an unknown model', { model: 'MiniMax-Hailuo-9' }],
    ['-Fast without first_frame_image', { model: 'MiniMax-Hailuo-2.3-Fast' }],
    ['10 s at 1080P', { duration: 10, resolution: '1080P' }],
    ['720P on Hailuo-2.3', { resolution: '720P' }],
    ['a duration of 8', { duration: 8 }],
    ['1080P on T2V-01', { model: 'T2V-01', resolution: '1080P' }],
    ['a first frame for a text-only model', { model: 'T2V-01', first_frame_image: 'https://x.test/a.png' }],
    ['a prompt over 2000 characters', { prompt: 'x'.repeat(2001) }],
    ['text-to-video without a prompt', { prompt: '' }],
  ])('refuses %s with 2013 inside HTTP 200', async (_, body) => {
    const refused = await create(body);
    expect(refused.status).toBe(200);
    expect(codeOf(refused)).toBe(2013);
    expect(refused.body.task_id).toBeUndefined();
  });

  it('accepts -Fast with a first frame, and image-to-video without a prompt', async () => {
    const image = { first_frame_image: 'https://x.test/a.png' };
    expect(codeOf(await create({ model: 'MiniMax-Hailuo-2.3-Fast', ...image }))).toBe(0);
    expect(codeOf(await create({ model: 'I2V-01', prompt: undefined, ...image }))).toBe(0);
  });
});

describe('GET /v1/query/video_generation', () => {
  it('walks Preparing → Queueing → Processing → Success by default, then stays Success with one file', async () => {
    const taskId = await taskIdOf({ resolution: '1080P' });
    const seen = await walk(taskId, 5);
    expect(seen.map((answer) => answer.status)).toEqual(['Preparing', 'Queueing', 'Processing', 'Success', 'Success']);
    expect(seen[0]).toMatchObject({ task_id: taskId, base_resp: { status_code: 0 } });
    expect(seen[0].file_id).toBeUndefined();
    expect(seen[3]).toMatchObject({ video_width: 1920, video_height: 1080 });
    expect(seen[3].file_id).toMatch(/^\d+$/);
    expect(seen[4].file_id).toBe(seen[3].file_id);
  });

  it('takes the number of polls from [sim:polls=N]', async () => {
    const short = await taskIdOf({ prompt: 'a cat [sim:polls=1]' });
    expect((await walk(short, 1)).map((answer) => answer.status)).toEqual(['Success']);
    const long = await taskIdOf({ prompt: 'a cat [sim:polls=6]' });
    expect((await walk(long, 7)).map((answer) => answer.status)).toEqual([
      'Preparing',
      'Queueing',
      'Processing',
      'Processing',
      'Processing',
      'Success',
      'Success',
    ]);
  });

  it.each([
    [1026, 'input content is sensitive'],
    [1027, 'output content is sensitive'],
  ])('ends Fail with business code %i on [sim:fail=CODE]', async (code, message) => {
    const taskId = await taskIdOf({ prompt: `a cat [sim:fail=${code}] [sim:polls=2]` });
    const [first, last] = await walk(taskId, 2);
    expect(first).toMatchObject({ status: 'Preparing', base_resp: { status_code: 0 } });
    expect(last).toMatchObject({ status: 'Fail', base_resp: { status_code: code, status_msg: message } });
    expect(last.file_id).toBeUndefined();
  });

  it('ends Fail with base_resp 0 on a bare [sim:fail], and follows an explicit [sim:walk=...]', async () => {
    const failed = await taskIdOf({ prompt: '[sim:fail][sim:polls=1]' });
    expect((await query(failed)).body).toMatchObject({ status: 'Fail', base_resp: { status_code: 0 } });
    const scripted = await taskIdOf({ prompt: '[sim:walk=Preparing,Unknown,Failed]' });
    expect((await walk(scripted, 4)).map((answer) => answer.status)).toEqual([
      'Preparing',
      'Unknown',
      'Failed',
      'Failed',
    ]);
  });

  it('finds only the creating key’s tasks: another key, or a made-up id, gets 2013', async () => {
    const taskId = await taskIdOf({});
    const foreign = await query(taskId, 'another-key');
    expect(foreign.status).toBe(200);
    expect(foreign.body.base_resp).toEqual({ status_code: 2013, status_msg: 'invalid params, task not found' });
    expect(codeOf(await query('999999999999999'))).toBe(2013);
    // The foreign look did not advance the owner's walk.
    expect((await query(taskId)).body.status).toBe('Preparing');
  });

  it('answers an injected business error inside HTTP 200', async () => {
    const taskId = await taskIdOf({});
    await fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault: 'error:1002' }) });
    const limited = await query(taskId);
    expect(limited.status).toBe(200);
    expect(codeOf(limited)).toBe(1002);
  });
});

describe('GET /v1/files/retrieve and the download link', () => {
  async function finishedFileId(prompt = 'a cat [sim:polls=1]', resolution = '768P', duration = 6) {
    const taskId = await taskIdOf({ prompt, resolution, duration });
    return (await query(taskId)).body.file_id as string;
  }

  it('hands out a link to a minimal MP4 (ftyp, moov with the clip’s duration, mdat)', async () => {
    const fileId = await finishedFileId(undefined, '768P', 10);
    const retrieved = await retrieve(Number(fileId));
    expect(retrieved.body.file).toMatchObject({
      file_id: Number(fileId),
      filename: 'output_aigc.mp4',
      purpose: 'video_generation',
    });
    const download = await fetch(retrieved.body.file.download_url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.length).toBe(retrieved.body.file.bytes);
    const boxes = topLevelBoxes(bytes);
    expect(boxes.map((box) => box.type)).toEqual(['ftyp', 'moov', 'mdat']);
    expect(bytes.toString('ascii', 8, 12)).toBe('isom');
    const moov = boxes[1]!;
    const inner = topLevelBoxes(moov.payload);
    expect(inner.map((box) => box.type)).toEqual(['mvhd']);
    const mvhd = inner[0]!.payload;
    expect(mvhd.length).toBe(100);
    expect(mvhd.readUInt32BE(12)).toBe(MP4_TIMESCALE);
    expect(mvhd.readUInt32BE(16) / mvhd.readUInt32BE(12)).toBe(10);
    expect(boxes[2]!.payload.toString('ascii')).toContain(fileId);
  });

  it('refuses an expired link with 403 as a CDN does, and a tampered one', async () => {
    const fileId = await finishedFileId('a cat [sim:polls=1] [sim:url_ttl_ms=100]');
    const url = (await retrieve(fileId)).body.file.download_url as string;
    expect((await fetch(url)).status).toBe(200);
    const tampered = await fetch(url.replace(/expires=\d+/, 'expires=99999999999999'));
    expect(tampered.status).toBe(403);
    expect(await tampered.text()).toContain('SignatureDoesNotMatch');
    await new Promise((done) => setTimeout(done, 150));
    const expired = await fetch(url);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('<Code>AccessDenied</Code><Message>Request has expired</Message>');
    // A fresh retrieve gives a fresh link.
    expect((await fetch((await retrieve(fileId)).body.file.download_url)).status).toBe(200);
  });

  it('links for an hour by default', async () => {
    const fileId = await finishedFileId();
    const url = new URL((await retrieve(fileId)).body.file.download_url);
    const lifetime = Number(url.searchParams.get('expires')) - Date.now();
    expect(lifetime).toBeGreaterThan(59 * 60 * 1000);
    expect(lifetime).toBeLessThanOrEqual(60 * 60 * 1000);
  });

  it('finds only the creating key’s files', async () => {
    const fileId = await finishedFileId();
    expect(codeOf(await retrieve(fileId, 'another-key'))).toBe(2013);
    expect(codeOf(await retrieve('123'))).toBe(2013);
    expect(codeOf(await retrieve(fileId))).toBe(0);
  });
});

describe('callback_url', () => {
  let receiver: Server;
  let receiverUrl: string;
  let received: any[];
  let echo: (challenge: string) => string;
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        const body = JSON.parse(text);
        received.push(body);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body.challenge === undefined ? {} : { challenge: echo(body.challenge) }));
      });
    });
    await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/minimax`;
  });
  afterAll(() => new Promise((done) => receiver.close(done)));
  beforeEach(() => {
    received = [];
    echo = (challenge) => challenge;
  });

  async function pushesUntil(last: string) {
    for (let i = 0; i < 300 && received.at(-1)?.status !== last; i++) await new Promise((done) => setTimeout(done, 10));
    return received;
  }

  it('sends a challenge first, then lower-case pushes as the task walks on its own', async () => {
    const taskId = await taskIdOf({ prompt: 'a cat [sim:step_ms=20]', callback_url: receiverUrl });
    const pushes = await pushesUntil('success');
    expect(Object.keys(pushes[0])).toEqual(['challenge']);
    expect(pushes.slice(1).map((push) => push.status)).toEqual(['processing', 'success']);
    expect(pushes[2]).toMatchObject({
      task_id: taskId,
      file_id: expect.stringMatching(/^\d+$/),
      base_resp: { status_code: 0 },
    });
    // Polls read the walk without moving it: the file is the pushed one.
    expect((await query(taskId)).body).toMatchObject({ status: 'Success', file_id: pushes[2].file_id });
  });

  it('pushes failed with the business code of a failing task', async () => {
    await taskIdOf({ prompt: 'a cat [sim:step_ms=20] [sim:fail=1027]', callback_url: receiverUrl });
    const pushes = await pushesUntil('failed');
    expect(pushes.at(-1)).toMatchObject({ status: 'failed', base_resp: { status_code: 1027 } });
  });

  it('refuses the task with 2013 when the challenge is not echoed', async () => {
    echo = () => 'something else';
    const refused = await create({ callback_url: receiverUrl });
    expect(refused.body.base_resp).toEqual({
      status_code: 2013,
      status_msg: 'invalid params, callback_url did not echo the challenge',
    });
    expect(received).toHaveLength(1);
  });
});

interface Box {
  readonly type: string;
  readonly payload: Buffer;
}

/** ISO-BMFF boxes side by side: 32-bit big-endian size (header included), 4-character type. */
function topLevelBoxes(bytes: Buffer): Box[] {
  const boxes: Box[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const size = bytes.readUInt32BE(offset);
    expect(size).toBeGreaterThanOrEqual(8);
    expect(offset + size).toBeLessThanOrEqual(bytes.length);
    boxes.push({
      type: bytes.toString('ascii', offset + 4, offset + 8),
      payload: bytes.subarray(offset + 8, offset + size),
    });
    offset += size;
  }
  expect(offset).toBe(bytes.length);
  return boxes;
}
