import { minimaxSimulator } from '../../../local/simulators/minimax.js';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';
import { SseParser } from '../../../lambdas/providers/sse-parser.js';
import { parseFlac, parseWav, walkMp3 } from '../../support/audio-formats.js';

/**
 * The MiniMax fake's speech and music routes: MiniMax's checks and auth answered in-band, real
 * decodable audio in each format with `extra_info` counted from its bytes, the streaming
 * variant and its in-band error event, URL answers served (and expired) by the simulator.
 */
let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator(minimaxSimulator);
});
afterAll(() => sim.close());
afterEach(() => sim.faults.clear());

type Answer = {
  data: { audio: string; status: number } | null;
  extra_info?: Record<string, number | string>;
  base_resp: { status_code: number; status_msg: string };
};

async function post(path: string, body: unknown, key: string | null = 'sim-key', query = '') {
  const response = await fetch(`${sim.url}/v1${path}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  return response;
}

const speak = async (body: Record<string, unknown>) =>
  (await (
    await post('/t2a_v2', { model: 'speech-2.6-hd', voice_setting: { voice_id: 'v' }, ...body })
  ).json()) as Answer;

describe('speech', () => {
  test.each([
    ['wav', (b: Buffer) => expect(parseWav(b)).toMatchObject({ sampleRate: 16000, channels: 1, bitsPerSample: 16 })],
    ['flac', (b: Buffer) => expect(parseFlac(b)).toMatchObject({ sampleRate: 16000, channels: 1, bitsPerSample: 16 })],
    ['mp3', (b: Buffer) => expect(walkMp3(b)).toMatchObject({ sampleRate: 16000, layer: 3 })],
    ['pcm', (b: Buffer) => expect(b.length % 2).toBe(0)],
  ])('%s: real audio in hex, extra_info consistent with the bytes', async (format, check) => {
    const answer = await speak({ text: 'Your order has shipped.', audio_setting: { format, sample_rate: 16000 } });
    expect(answer.base_resp.status_code).toBe(0);
    expect(answer.data?.status).toBe(2);
    const bytes = Buffer.from(answer.data!.audio, 'hex');
    check(bytes);
    expect(answer.extra_info).toMatchObject({
      audio_size: bytes.length,
      audio_format: format,
      audio_sample_rate: 16000,
      usage_characters: 23,
      audio_length: 920,
    });
    if (format === 'pcm') expect(bytes.length).toBe(16000 * 0.92 * 2);
  });

  test('the FLAC frames decode to every sample STREAMINFO announces', async () => {
    const answer = await speak({ text: 'x'.repeat(150), audio_setting: { format: 'flac', sample_rate: 16000 } });
    const info = parseFlac(Buffer.from(answer.data!.audio, 'hex'));
    expect(info.totalSamples).toBe(16000 * 6);
    expect(info.decodedSamples).toBe(info.totalSamples);
  });

  test('the audio grows with the text', async () => {
    const short = await speak({ text: 'Hi there', audio_setting: { format: 'wav' } });
    const long = await speak({ text: 'Hi there, '.repeat(10), audio_setting: { format: 'wav' } });
    expect(Number(long.extra_info!['audio_length'])).toBeGreaterThan(Number(short.extra_info!['audio_length']));
    expect(long.data!.audio.length).toBeGreaterThan(short.data!.audio.length);
  });

  test.each([
    ['model', { model: 'speech-9' }],
    ['text', { text: '' }],
    ['text', { text: 'x'.repeat(10_001) }],
    ['voice_setting.speed', { voice_setting: { voice_id: 'v', speed: 2.5 } }],
    ['voice_setting.vol', { voice_setting: { voice_id: 'v', vol: 0 } }],
    ['voice_setting.pitch', { voice_setting: { voice_id: 'v', pitch: 13 } }],
    ['voice_setting.voice_id', { voice_setting: {} }],
    ['audio_setting.sample_rate', { audio_setting: { sample_rate: 11025 } }],
    ['audio_setting.bitrate', { audio_setting: { bitrate: 100 } }],
    ['audio_setting.format', { audio_setting: { format: 'ogg' } }],
    ['output_format', { stream: true, output_format: 'url' }],
  ])('MiniMax refuses a bad %s with 2013 inside HTTP 200', async (field, change) => {
    const response = await post('/t2a_v2', {
      model: 'speech-2.6-hd',
      text: 'hello',
      voice_setting: { voice_id: 'v' },
      ...change,
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as Answer;
    expect(answer.base_resp.status_code).toBe(2013);
    expect(answer.base_resp.status_msg).toContain(field);
    expect(answer.data).toBeNull();
  });

  test('text that is mostly invisible characters is 1042', async () => {
    const answer = await speak({ text: `hi${'\u200b'.repeat(5)}` });
    expect(answer.base_resp.status_code).toBe(1042);
  });

  test('streaming: status-1 hex chunks, then a status-2 event with extra_info and the aggregated audio', async () => {
    const events = await streamEvents({ text: 'x'.repeat(100), stream: true, audio_setting: { format: 'wav' } });
    const chunks = events.filter((e) => e.data?.status === 1);
    const last = events.at(-1)!;
    expect(chunks.length).toBeGreaterThan(1);
    expect(last.data?.status).toBe(2);
    const joined = Buffer.concat(chunks.map((e) => Buffer.from(e.data!.audio, 'hex')));
    expect(parseWav(joined).dataBytes).toBe(joined.length - 44);
    expect(last.data!.audio).toBe(joined.toString('hex'));
    expect(last.extra_info?.['audio_size']).toBe(joined.length);
  });

  test('streaming with exclude_aggregated_audio: the final event carries no audio', async () => {
    const events = await streamEvents({
      text: 'hello there',
      stream: true,
      stream_options: { exclude_aggregated_audio: true },
      audio_setting: { format: 'flac' },
    });
    expect(events.at(-1)!.data).toEqual({ audio: '', status: 2 });
  });

  test('[sim:fail_after=N]: an in-band error event after N chunks ends the stream', async () => {
    const events = await streamEvents({
      text: `${'x'.repeat(100)} [sim:fail_after=2]`,
      stream: true,
      audio_setting: { format: 'pcm' },
    });
    expect(events.map((e) => e.base_resp.status_code)).toEqual([0, 0, 1000]);
  });

  test('output_format url: a link the simulator serves without the key, until it expires', async () => {
    const answer = await speak({ text: 'hello', output_format: 'url', audio_setting: { format: 'mp3' } });
    const url = answer.data!.audio;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\/audio\/[0-9a-f]{24}\.mp3\?expires=\d+$/);
    const file = await fetch(url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('audio/mpeg');
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.length).toBe(answer.extra_info!['audio_size']);
    walkMp3(bytes);
    const brief = await speak({ text: 'hello [sim:url_ttl_ms=1]', output_format: 'url' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await fetch(brief.data!.audio)).status).toBe(403);
  });

  test('a named fault answers the business error in HTTP 200', async () => {
    await fetch(`${sim.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ fault: 'error:1002' }) });
    const response = await post('/t2a_v2', { model: 'speech-2.6-hd', text: 'hi', voice_setting: { voice_id: 'v' } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as Answer).base_resp.status_code).toBe(1002);
  });
});

describe('auth, on the audio routes too', () => {
  const body = { model: 'speech-2.6-hd', text: 'hi', voice_setting: { voice_id: 'v' } };
  const codeOf = async (response: Response) => ((await response.json()) as Answer).base_resp.status_code;
  test("no key: 1004; a key of the other region: 2049; a GroupId not the key's: 1004", async () => {
    expect(await codeOf(await post('/t2a_v2', body, null))).toBe(1004);
    expect(await codeOf(await post('/music_generation', { model: 'music-2.5', lyrics: 'la' }, 'bad-key'))).toBe(2049);
    expect(await codeOf(await post('/t2a_v2', body, 'sim-key', '?GroupId=other'))).toBe(1004);
    expect(await codeOf(await post('/t2a_v2', body, 'sim-key', '?GroupId=sim-group'))).toBe(0);
  });
});

describe('music', () => {
  const compose = async (body: Record<string, unknown>) =>
    (await (await post('/music_generation', { model: 'music-2.5', ...body })).json()) as Answer;

  test('a song from lyrics: status 2, mp3 in hex, extra_info.music_* from the bytes', async () => {
    const answer = await compose({ lyrics: '[Verse]\nla la\n[Pre Chorus]\nla', prompt: 'pop [sim:latency_ms=0]' });
    expect(answer.base_resp.status_code).toBe(0);
    expect(answer.data?.status).toBe(2);
    const bytes = Buffer.from(answer.data!.audio, 'hex');
    expect(walkMp3(bytes).sampleRate).toBe(44100);
    expect(answer.extra_info).toMatchObject({
      music_duration: 2000,
      music_sample_rate: 44100,
      music_size: bytes.length,
    });
  });

  test('[sim:latency_ms=N] holds the answer back', async () => {
    const started = Date.now();
    await compose({ lyrics: 'la [sim:latency_ms=300]' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  test.each([
    ['lyrics', {}],
    ['lyrics', { lyrics: 'x'.repeat(3501) }],
    ['prompt', { lyrics: 'la', prompt: 'x'.repeat(2001) }],
    ['is_instrumental', { is_instrumental: true, prompt: 'calm' }],
    ['prompt', { model: 'music-2.5+', is_instrumental: true }],
    ['[Pre-Chorus]', { lyrics: '[Pre-Chorus]\nla' }],
    ['output_format', { lyrics: 'la', output_format: 'base64' }],
  ])('MiniMax refuses the request (%s) with 2013', async (problem, body) => {
    const answer = await compose(body);
    expect(answer.base_resp.status_code).toBe(2013);
    expect(answer.base_resp.status_msg).toContain(problem);
  });

  test('instrumental on music-2.5+, and lyrics written from a prompt by lyrics_optimizer', async () => {
    const instrumental = await compose({
      model: 'music-2.5+',
      is_instrumental: true,
      prompt: 'calm [sim:latency_ms=0]',
    });
    expect(instrumental.data?.status).toBe(2);
    const written = await compose({
      prompt: 'a song [sim:latency_ms=0]',
      lyrics_optimizer: true,
      output_format: 'url',
    });
    expect((await fetch(written.data!.audio)).status).toBe(200);
  });
});

async function streamEvents(body: Record<string, unknown>): Promise<Answer[]> {
  const response = await post('/t2a_v2', { model: 'speech-2.6-hd', voice_setting: { voice_id: 'v' }, ...body });
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const parser = new SseParser();
  const events = [...parser.push(await response.text()), ...parser.end()];
  return events.map((e) => JSON.parse(e.data) as Answer);
}
