import { send } from '../../../lambdas/providers/http-transport.js';
import type { AudioAttempt, AudioDeps } from '../../../lambdas/media/audio-deployment.js';
import { MediaError } from '../../../lambdas/media/media-errors.js';
import { synthesizeSpeech } from '../../../lambdas/media/speech.js';
import { speechRequestOf } from '../../../lambdas/media/speech-request.js';
import { UpstreamError } from '../../../lambdas/providers/upstream-failure.js';
import { startSimulator, type RunningSimulator } from '../../../local/simulators/harness.js';
import { minimaxSimulator } from '../../../local/simulators/minimax.js';
import { parseWav } from '../../support/audio-formats.js';

/**
 * The speech core against the MiniMax fake on loopback: audio as it is streamed, failures
 * before the first byte as MediaErrors, failures after it as an error of the audio iterable,
 * and exactly one attempt reported either way.
 */
let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator(minimaxSimulator);
});
afterAll(() => sim.close());
afterEach(() => sim.faults.clear());

const deps = (configured = true): AudioDeps => ({
  endpoint: async () => (configured ? { baseUrl: `${sim.url}/v1`, apiKey: 'sim-key' } : undefined),
  send,
});

async function run(text: string, format: 'wav' | 'pcm' = 'wav', configured = true) {
  const attempts: AudioAttempt[] = [];
  const speech = await synthesizeSpeech(
    speechRequestOf({ text, audio_setting: { format, sample_rate: 16000 } }),
    { signal: new AbortController().signal, onAttempt: (a) => attempts.push(a) },
    deps(configured),
  );
  return { speech, attempts };
}

async function collect(audio: AsyncIterable<Uint8Array>): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of audio) chunks.push(Buffer.from(chunk));
  return chunks;
}

test('the audio arrives in chunks, whole, and the usage is MiniMax’s characters', async () => {
  const { speech, attempts } = await run('x'.repeat(50));
  expect(speech.contentType).toBe('audio/wav');
  const chunks = await collect(speech.audio);
  expect(chunks.length).toBeGreaterThan(1);
  expect(parseWav(Buffer.concat(chunks)).dataBytes).toBe(16000 * 2 * 2);
  expect(attempts).toEqual([{ model: 'speech-2.6-hd', quantity: 50, estimated: false, status: 200, outcome: 'ok' }]);
});

test('a failure before the first byte is an MediaError (rate limit), reported once', async () => {
  sim.faults.add({ fault: { type: 'error', name: '1002' }, remaining: 1, text: 'error:1002' });
  const failed = run('hello');
  await expect(failed).rejects.toBeInstanceOf(MediaError);
  await expect(failed).rejects.toMatchObject({ kind: 'rate_limited' });
});

test('no MiniMax key: not_configured, nothing sent', async () => {
  const before = sim.requests.length;
  await expect(run('hello', 'wav', false)).rejects.toMatchObject({ kind: 'not_configured' });
  expect(sim.requests.length).toBe(before);
});

test('an in-band error after audio ends the iterable with the upstream error, reported once', async () => {
  const { speech, attempts } = await run(`${'x'.repeat(100)} [sim:fail_after=2]`, 'pcm');
  const received: Buffer[] = [];
  await expect(
    (async () => {
      for await (const chunk of speech.audio) received.push(Buffer.from(chunk));
    })(),
  ).rejects.toBeInstanceOf(UpstreamError);
  expect(received).toHaveLength(2);
  expect(attempts).toEqual([
    { model: 'speech-2.6-hd', quantity: 0, estimated: true, status: 200, outcome: 'overload' },
  ]);
});
