import { settledUsage } from './support/settled-usage.js';
import fc from 'fast-check';
import { bearer, call, type Answer } from './support/http.js';
import { ledgerEntries } from './support/ledger-entries.js';
import { useGateway } from './support/gateway-fixture.js';
import { FramingError, RawHttpConnection } from '../support/raw-http.js';
import { parseFlac, parseWav, walkMp3 } from '../support/audio-formats.js';

/**
 * POST /api/v1/media/speech over HTTP against the local runtime and its MiniMax fake (docs/interface.md
 * §4.9): decodable audio of each format streamed through the binary writer, every validation
 * rule a 400 naming its field, MiniMax's failures as clear statuses before the first byte and
 * as a cut response after it, usage by characters.
 */
const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'WARN' },
  account: 'speech',
  key: { via: 'dashboard' },
  simulator: 'minimax',
  resetEach: true,
});

async function speak(body: unknown): Promise<{ status: number; headers: Headers; bytes: Buffer; json?: any }> {
  const response = await fetch(local.gateway.url('/api/v1/media/speech'), {
    method: 'POST',
    headers: { ...bearer(local.key), 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const json = response.headers.get('content-type')?.startsWith('application/json')
    ? JSON.parse(bytes.toString('utf8'))
    : undefined;
  return { status: response.status, headers: response.headers, bytes, json };
}

async function sentToMinimax(): Promise<any> {
  const requests = (await local.simulator.requests()).filter((r) => r.path === '/v1/t2a_v2');
  expect(requests).toHaveLength(1);
  return requests[0]!.body;
}

describe('audio of each format', () => {
  test('mp3 by default: MPEG Layer III frames at 44.1 kHz, MiniMax asked to stream with the defaults', async () => {
    const answer = await speak({ text: 'Your order has shipped.' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('audio/mpeg');
    expect(walkMp3(answer.bytes)).toMatchObject({ sampleRate: 44100, layer: 3 });
    expect(await sentToMinimax()).toEqual({
      model: 'speech-2.6-hd',
      text: 'Your order has shipped.',
      stream: true,
      stream_options: { exclude_aggregated_audio: true },
      output_format: 'hex',
      voice_setting: { voice_id: 'female-shaonv', speed: 1, vol: 1 },
      audio_setting: { format: 'mp3', sample_rate: 44100, channel: 1, bitrate: 256000 },
    });
  });

  test('wav: a RIFF/WAVE file whose header matches its bytes; no bitrate sent for a lossless format', async () => {
    const answer = await speak({
      text: 'Hello from the gateway',
      model: 'speech-2.6-turbo',
      voice_setting: { voice_id: 'English_Graceful_Lady', speed: 1.5, vol: 10 },
      audio_setting: { format: 'wav', sample_rate: 24000, bitrate: 64000 },
    });
    expect(answer.headers.get('content-type')).toBe('audio/wav');
    expect(parseWav(answer.bytes)).toEqual({
      sampleRate: 24000,
      channels: 1,
      bitsPerSample: 16,
      dataBytes: 24000 * 0.88 * 2,
    });
    const sent = await sentToMinimax();
    expect(sent.audio_setting).toEqual({ format: 'wav', sample_rate: 24000, channel: 1 });
    expect(sent.voice_setting).toEqual({ voice_id: 'English_Graceful_Lady', speed: 1.5, vol: 10 });
  });

  test('flac: STREAMINFO parsed and every frame decoded (CRCs checked)', async () => {
    const answer = await speak({ text: 'flac please', audio_setting: { format: 'flac', sample_rate: 16000 } });
    expect(answer.headers.get('content-type')).toBe('audio/flac');
    const flac = parseFlac(answer.bytes);
    expect(flac).toMatchObject({ sampleRate: 16000, channels: 1, bitsPerSample: 16 });
    expect(flac.decodedSamples).toBe(flac.totalSamples);
  });

  test('pcm: raw 16-bit little-endian samples, the rate in the Content-Type', async () => {
    const answer = await speak({ text: 'pcm', audio_setting: { format: 'pcm', sample_rate: 32000 } });
    expect(answer.headers.get('content-type')).toBe('audio/pcm;rate=32000;channels=1;format=s16le');
    expect(answer.bytes.length).toBe(32000 * 0.12 * 2);
  });

  test('streamed: the audio reaches the client in several chunks of one chunked body', async () => {
    const connection = await RawHttpConnection.open(local.gateway.info.baseUrl);
    try {
      const response = await connection.request(
        'POST',
        '/api/v1/media/speech',
        { ...bearer(local.key), 'Content-Type': 'application/json' },
        JSON.stringify({ text: 'x'.repeat(200), audio_setting: { format: 'wav', sample_rate: 16000 } }),
      );
      expect(response.headers['transfer-encoding']).toBe('chunked');
      expect(response.chunks).toBeGreaterThan(1);
      expect(parseWav(response.body).dataBytes).toBe(16000 * 6 * 2);
    } finally {
      connection.close();
    }
  });
});

describe('failures', () => {
  const expectError = (answer: { status: number; json?: any }, status: number, code: string) => {
    expect(answer.status).toBe(status);
    expect(answer.json).toMatchObject({ success: false, error: { code } });
  };

  test("MiniMax's rate limit (1002 inside HTTP 200) is a 429 with Retry-After", async () => {
    await local.simulator.fault('error:1002');
    const answer = await speak({ text: 'hello' });
    expectError(answer, 429, 'RATE_LIMIT_EXCEEDED');
    expect(answer.headers.get('retry-after')).toBe('1');
  });

  test.each([
    ['error:1008', 503, 'SERVICE_UNAVAILABLE', 'insufficient balance'],
    ['error:2049', 503, 'SERVICE_UNAVAILABLE', 'invalid api key'],
    ['status:500', 503, 'SERVICE_UNAVAILABLE', 'injected 500'],
    ['error:1026', 400, 'BAD_REQUEST', 'sensitive'],
  ])('%s is a %d %s', async (fault, status, code, words) => {
    await local.simulator.fault(fault);
    const answer = await speak({ text: 'hello' });
    expectError(answer, status, code);
    expect(answer.json.error.message).toContain(words);
  });

  test('text MiniMax refuses (1042: mostly invisible characters) is a 400 naming text', async () => {
    const answer = await speak({ text: `hi${'\u200b'.repeat(5)}` });
    expectError(answer, 400, 'BAD_REQUEST');
    expect(answer.json.error.field).toBe('text');
  });

  test.each([
    ['an in-band error event', {}, '[sim:fail_after=2]'],
    ['a connection reset', { fault: 'reset_after_chunks:2' }, ''],
  ])('%s after audio was sent cuts the response: the chunked body never completes', async (_, setup, directive) => {
    if ('fault' in setup) await local.simulator.fault(setup.fault as string);
    const connection = await RawHttpConnection.open(local.gateway.info.baseUrl);
    try {
      const body = JSON.stringify({ text: `${'x'.repeat(200)} ${directive}`, audio_setting: { format: 'pcm' } });
      await expect(
        connection.request(
          'POST',
          '/api/v1/media/speech',
          { ...bearer(local.key), 'Content-Type': 'application/json' },
          body,
        ),
      ).rejects.toThrow(FramingError);
    } finally {
      connection.close();
    }
  });
});

describe('validation: every rule of 4.9 is a 400 naming its field', () => {
  test.each([
    ['text', {}],
    ['text', { text: '' }],
    ['text', { text: '   ' }],
    ['text', { text: 'x'.repeat(10_001) }],
    ['text', { text: 42 }],
    ['model', { text: 'hi', model: 'speech-2.8-hd' }],
    ['voice_setting.voice_id', { text: 'hi', voice_setting: { voice_id: '' } }],
    ['voice_setting.speed', { text: 'hi', voice_setting: { speed: 0.4 } }],
    ['voice_setting.speed', { text: 'hi', voice_setting: { speed: 2.1 } }],
    ['voice_setting.vol', { text: 'hi', voice_setting: { vol: 0 } }],
    ['voice_setting.vol', { text: 'hi', voice_setting: { vol: 10.5 } }],
    ['voice_setting.pitch', { text: 'hi', voice_setting: { pitch: 1 } }],
    ['audio_setting.format', { text: 'hi', audio_setting: { format: 'ogg' } }],
    ['audio_setting.sample_rate', { text: 'hi', audio_setting: { sample_rate: 22050 } }],
    ['audio_setting.bitrate', { text: 'hi', audio_setting: { bitrate: 320000 } }],
    ['voice', { text: 'hi', voice: 'alloy' }],
  ])('%s: %j', async (field, body) => {
    const answer = await call(local.gateway.url('/api/v1/media/speech'), { headers: bearer(local.key), body });
    expectBadRequest(answer, field);
  });

  test('text of exactly 10,000 characters is accepted', async () => {
    expect(
      (await speak({ text: 'x'.repeat(10_000), audio_setting: { format: 'pcm', sample_rate: 16000 } })).status,
    ).toBe(200);
  });
});

describe('usage', () => {
  test("one ledger entry by characters, MiniMax's usage_characters, priced from the unit catalog", async () => {
    const answer = await speak({ text: 'Count these characters.', audio_setting: { format: 'wav' } });
    const requestId = answer.headers.get('x-request-id')!;
    const [entry, ...rest] = await ledgerEntries(local.gateway, local.account.accountId, requestId, 1);
    expect(rest).toHaveLength(0);
    expect(entry).toMatchObject({
      model: 'minimax/speech-2.6-hd',
      provider: 'minimax',
      route: 'media-speech',
      unit: 'characters',
      quantity: 23,
      costMicroUsd: 2_300, // $100 per million characters
      estimated: false,
      status: 200,
      outcome: 'ok',
    });
    const report = await settledUsage(local.gateway.url('/api/v1/usage'), bearer(local.key), 1);
    expect(report.body.data.byModel['minimax/speech-2.6-hd'].requests).toBeGreaterThan(0);
  });

  test('a refused call is metered at 0 with its outcome', async () => {
    await local.simulator.fault('error:1002');
    const answer = await speak({ text: 'limited' });
    const [entry] = await ledgerEntries(local.gateway, local.account.accountId, answer.headers.get('x-request-id')!, 1);
    expect(entry).toMatchObject({ unit: 'characters', quantity: 0, costMicroUsd: 0, outcome: 'rate_limit' });
  });
});

describe('any body', () => {
  const anyValue = fc.oneof(
    fc.jsonValue(),
    fc.string(),
    fc.double(),
    fc.constantFrom(0, -1, 0.5, 2, 10, 44100, null, true, [], {}),
  );
  const plausible = {
    text: fc.oneof(fc.string({ maxLength: 200 }), fc.constant('x'.repeat(10_001)), anyValue),
    model: fc.oneof(fc.constantFrom('speech-2.6-hd', 'speech-2.6-turbo', 'speech-01'), anyValue),
    voice_setting: fc.oneof(
      fc.record(
        {
          voice_id: fc.oneof(fc.string(), anyValue),
          speed: fc.oneof(fc.double(), anyValue),
          vol: fc.oneof(fc.double(), anyValue),
        },
        { requiredKeys: [] },
      ),
      anyValue,
    ),
    audio_setting: fc.oneof(
      fc.record(
        {
          format: fc.oneof(fc.constantFrom('mp3', 'wav', 'pcm', 'flac', 'ogg'), anyValue),
          sample_rate: fc.oneof(fc.constantFrom(16000, 24000, 32000, 44100, 8000), anyValue),
          bitrate: fc.oneof(fc.constantFrom(32000, 64000, 128000, 256000), anyValue),
        },
        { requiredKeys: [] },
      ),
      anyValue,
    ),
  };
  const bodies = fc.oneof(
    fc.record(plausible, { requiredKeys: [] }).map((body) => JSON.stringify(body)),
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.string(),
  );

  test('never yields a 5xx, and every 400 names its field', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, async (rawBody) => {
        const answer = await call(local.gateway.url('/api/v1/media/speech'), { headers: bearer(local.key), rawBody });
        expect([200, 400]).toContain(answer.status);
        if (answer.status === 400) {
          expect(answer.body.error.field.length).toBeGreaterThan(0);
          expect(answer.body.error.message).toContain(answer.body.error.field);
        }
      }),
      { numRuns: 60 },
    );
  });
});

function expectBadRequest(answer: Answer, field: string): void {
  expect(answer.status).toBe(400);
  expect(answer.body).toMatchObject({ success: false, error: { code: 'BAD_REQUEST', field } });
  expect(answer.body.error.message).toContain(field);
}
