import fc from 'fast-check';
import { bearer, call, type Answer } from './support/http.js';
import { ledgerEntries } from './support/ledger-entries.js';
import { useGateway } from './support/gateway-fixture.js';
import { walkMp3 } from '../support/audio-formats.js';

/**
 * POST /api/v1/media/music over HTTP against the local runtime and its MiniMax fake (docs/interface.md §4.9):
 * the interface translated for MiniMax (structure tags, lyrics_optimizer), combinations
 * MiniMax cannot serve refused with a 400 naming the field before any call, usage per song.
 */
const local = useGateway({
  env: { POWERTOOLS_LOG_LEVEL: 'WARN' },
  account: 'music',
  key: { via: 'dashboard' },
  simulator: 'minimax',
  resetEach: true,
});

/** The fake's generation time, kept short here (its default is a second). */
const QUICK = '[sim:latency_ms=20]';
const compose = (body: unknown) => call(local.gateway.url('/api/v1/media/music'), { headers: bearer(local.key), body });

async function sentToMinimax(): Promise<any> {
  const requests = (await local.simulator.requests()).filter((r) => r.path === '/v1/music_generation');
  expect(requests).toHaveLength(1);
  return requests[0]!.body;
}

test('a song from lyrics: a URL to an MP3, duration in seconds, tags translated to MiniMax spelling', async () => {
  const answer = await compose({
    prompt: `indie pop ${QUICK}`,
    lyrics: '[Verse]\nla la\n[Pre-Chorus]\noh\n[Chorus]\nyeah',
  });
  expect(answer.status).toBe(200);
  expect(answer.body).toEqual({
    success: true,
    data: { status: 2, audio: expect.stringMatching(/^http:\/\//), duration: 2.5, sample_rate: 44100, format: 'mp3' },
  });
  const file = await fetch(answer.body.data.audio);
  expect(walkMp3(Buffer.from(await file.arrayBuffer())).sampleRate).toBe(44100);
  expect(await sentToMinimax()).toEqual({
    model: 'music-2.5',
    prompt: `indie pop ${QUICK}`,
    lyrics: '[Verse]\nla la\n[Pre Chorus]\noh\n[Chorus]\nyeah',
    output_format: 'url',
    audio_setting: { sample_rate: 44100, bitrate: 256000, format: 'mp3' },
  });
});

test('hex output, and a prompt alone asks MiniMax to write the lyrics', async () => {
  const answer = await compose({ prompt: `a sea shanty ${QUICK}`, output_format: 'hex' });
  expect(answer.status).toBe(200);
  walkMp3(Buffer.from(answer.body.data.audio, 'hex'));
  expect(await sentToMinimax()).toMatchObject({ lyrics_optimizer: true, output_format: 'hex' });
});

test('an instrumental on music-2.5+', async () => {
  const answer = await compose({ model: 'music-2.5+', is_instrumental: true, prompt: `calm piano ${QUICK}` });
  expect(answer.status).toBe(200);
  expect(await sentToMinimax()).toMatchObject({
    model: 'music-2.5+',
    is_instrumental: true,
    prompt: `calm piano ${QUICK}`,
  });
});

describe('validation: every rule is a 400 naming its field, before any call', () => {
  test.each([
    ['prompt', {}],
    ['prompt', { prompt: 'x'.repeat(2001) }],
    ['prompt', { prompt: '  ' }],
    ['lyrics', { lyrics: 'x'.repeat(3501) }],
    ['lyrics', { lyrics: '[Verse 2]\nla' }],
    ['lyrics', { prompt: 'pop', lyrics_optimizer: false }],
    ['is_instrumental', { prompt: 'calm', is_instrumental: true }],
    ['is_instrumental', { prompt: 'calm', is_instrumental: 'yes' }],
    ['prompt', { model: 'music-2.5+', is_instrumental: true }],
    ['lyrics', { model: 'music-2.5+', is_instrumental: true, prompt: 'calm', lyrics: 'la' }],
    ['model', { lyrics: 'la', model: 'music-3.0' }],
    ['output_format', { lyrics: 'la', output_format: 'base64' }],
    ['lyrics_optimizer', { prompt: 'pop', lyrics_optimizer: 1 }],
    ['style', { lyrics: 'la', style: 'jazz' }],
  ])('%s: %j', async (field, body) => {
    expectBadRequest(await compose(body), field);
    expect(await local.simulator.requests()).toHaveLength(0);
  });
});

test("MiniMax's rate limit is a 429 with Retry-After; its refusal of the lyrics a 400 naming them", async () => {
  await local.simulator.fault('error:1002');
  const limited = await compose({ lyrics: `la ${QUICK}` });
  expect(limited.status).toBe(429);
  expect(limited.headers.get('retry-after')).toBe('1');
  await local.simulator.fault('error:1026');
  expectBadRequest(await compose({ lyrics: `la ${QUICK}` }), 'lyrics');
});

test('usage: one song per completed song, none for a failed one', async () => {
  const answer = await compose({ lyrics: `la ${QUICK}` });
  const [entry] = await ledgerEntries(local.gateway, local.account.accountId, answer.headers.get('x-request-id')!, 1);
  expect(entry).toMatchObject({
    model: 'minimax/music-2.5',
    route: 'media-music',
    unit: 'songs',
    quantity: 1,
    costMicroUsd: 150_000,
    outcome: 'ok',
  });
  await local.simulator.fault('status:503');
  const failed = await compose({ lyrics: `la ${QUICK}` });
  expect(failed.status).toBe(503);
  const [refused] = await ledgerEntries(local.gateway, local.account.accountId, failed.headers.get('x-request-id')!, 1);
  expect(refused).toMatchObject({ unit: 'songs', quantity: 0, costMicroUsd: 0, status: 503 });
});

test('any body: never a 5xx, and every 400 names its field', async () => {
  const anyValue = fc.oneof(fc.jsonValue(), fc.string(), fc.constantFrom(null, true, false, '', [], {}));
  const texty = fc.oneof(
    fc.string({ maxLength: 80 }).map((text) => `${text} ${QUICK}`),
    fc.constantFrom('[Pre-Chorus]\nla', '[Bridge]', '[x]', 'x'.repeat(3501)),
    anyValue,
  );
  const body = fc.record(
    {
      prompt: texty,
      lyrics: texty,
      model: fc.oneof(fc.constantFrom('music-2.5', 'music-2.5+'), anyValue),
      is_instrumental: fc.oneof(fc.boolean(), anyValue),
      lyrics_optimizer: fc.oneof(fc.boolean(), anyValue),
      output_format: fc.oneof(fc.constantFrom('url', 'hex'), anyValue),
    },
    { requiredKeys: [] },
  );
  const bodies = fc.oneof(
    body.map((b) => JSON.stringify(b)),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string(),
  );
  await fc.assert(
    fc.asyncProperty(bodies, async (rawBody) => {
      const answer = await call(local.gateway.url('/api/v1/media/music'), { headers: bearer(local.key), rawBody });
      expect([200, 400]).toContain(answer.status);
      if (answer.status === 400) expect(answer.body.error.message).toContain(answer.body.error.field);
    }),
    { numRuns: 50 },
  );
});

function expectBadRequest(answer: Answer, field: string): void {
  expect(answer.status).toBe(400);
  expect(answer.body).toMatchObject({ success: false, error: { code: 'BAD_REQUEST', field } });
  expect(answer.body.error.message).toContain(field);
}
