import { deliverAudio } from './audio-answer.js';
import {
  directiveNumber,
  firstProblem,
  flag,
  integerRange,
  invisibleRatio,
  isObject,
  oneOf,
  range,
  text,
} from './audio-checks.js';
import { encodedTone, SIMULATED_FORMATS, type SimulatedFormat } from './audio-encoding.js';
import type { SimRoute } from './harness.js';
import { businessError } from './minimax-wire.js';

/**
 * The MiniMax fake's `POST /t2a_v2` (docs/upstreams.md §6.2): MiniMax's own checks (2013 inside
 * HTTP 200 for a bad enum or range, 1042 for text that is mostly invisible characters), then
 * a real clip of the tone whose length follows the text (40 ms a character, 0.1 s to 6 s),
 * encoded in the asked format, with `extra_info` counted from those bytes. Formats MiniMax
 * has but the fake does not encode (`opus`, `pcmu_*`) and stereo are refused with 2013.
 */
export const SPEECH_MODELS = [
  'speech-2.8-hd',
  'speech-2.8-turbo',
  'speech-2.6-hd',
  'speech-2.6-turbo',
  'speech-02-hd',
  'speech-02-turbo',
  'speech-01-hd',
  'speech-01-turbo',
] as const;
const SAMPLE_RATES = [8000, 16000, 22050, 24000, 32000, 44100];
const BITRATES = [32000, 64000, 128000, 256000];
const MAX_TEXT = 10_000;
const MS_PER_CHARACTER = 40;
const MIN_CLIP_MS = 100;
const MAX_CLIP_MS = 6_000;

export const SPEECH_ROUTE: SimRoute = {
  method: 'POST',
  path: /^\/v1\/t2a_v2$/,
  faultable: true,
  async handle(x) {
    const body = isObject(x.body) ? x.body : {};
    const voice = isObject(body['voice_setting']) ? body['voice_setting'] : {};
    const audio = isObject(body['audio_setting']) ? body['audio_setting'] : {};
    const problem = speechProblem(body, voice, audio);
    if (problem) return x.send(businessError(2013, `invalid params, ${problem}`));
    const input = body['text'] as string;
    if (invisibleRatio(input) > 0.1) return x.send(businessError(1042));
    return deliverAudio(x, speechDelivery(body, audio, input));
  },
};

function speechProblem(
  body: Record<string, unknown>,
  voice: Record<string, unknown>,
  audio: Record<string, unknown>,
): string | undefined {
  const format = audio['format'] ?? 'mp3';
  return firstProblem([
    oneOf('model', body['model'], SPEECH_MODELS, true),
    text('text', body['text'], 1, MAX_TEXT, true),
    flag('stream', body['stream']),
    oneOf('output_format', body['output_format'], ['hex', 'url']),
    body['stream'] === true && body['output_format'] === 'url' ? 'output_format url needs stream false' : undefined,
    body['voice_setting'] !== undefined && !isObject(body['voice_setting'])
      ? 'voice_setting must be an object'
      : undefined,
    text('voice_setting.voice_id', voice['voice_id'], 1, 256, true),
    range('voice_setting.speed', voice['speed'], 0.5, 2),
    range('voice_setting.vol', voice['vol'], 0, 10, true),
    integerRange('voice_setting.pitch', voice['pitch'], -12, 12),
    oneOf('audio_setting.sample_rate', audio['sample_rate'], SAMPLE_RATES),
    oneOf('audio_setting.bitrate', audio['bitrate'], BITRATES),
    oneOf('audio_setting.format', format, SIMULATED_FORMATS),
    oneOf('audio_setting.channel', audio['channel'], [1]),
  ]);
}

function speechDelivery(body: Record<string, unknown>, audio: Record<string, unknown>, input: string) {
  const characters = [...input].length;
  const format = (audio['format'] ?? 'mp3') as SimulatedFormat;
  const sampleRate = (audio['sample_rate'] as number | undefined) ?? 32000;
  const bitrate = (audio['bitrate'] as number | undefined) ?? 128000;
  const durationMs = clipMs(characters);
  const bytes = encodedTone({ format, sampleRate, bitrate, durationMs });
  const options = isObject(body['stream_options']) ? body['stream_options'] : {};
  return {
    bytes,
    format,
    stream: body['stream'] === true,
    url: body['output_format'] === 'url',
    excludeAggregated: options['exclude_aggregated_audio'] === true,
    failAfter: directiveNumber([input], 'fail_after', 1_000),
    urlTtlMs: directiveNumber([input], 'url_ttl_ms', 86_400_000),
    extraInfo: {
      audio_length: durationMs,
      audio_sample_rate: sampleRate,
      audio_size: bytes.length,
      bitrate,
      word_count: input.split(/\s+/).filter(Boolean).length,
      invisible_character_ratio: invisibleRatio(input),
      usage_characters: characters,
      audio_format: format,
      audio_channel: 1,
    },
  };
}

const clipMs = (characters: number) =>
  Math.min(MAX_CLIP_MS, Math.max(MIN_CLIP_MS, Math.round((characters * MS_PER_CHARACTER) / 10) * 10));
