import { deliverAudio } from './audio-answer.js';
import { directiveNumber, firstProblem, flag, isObject, oneOf, text } from './audio-checks.js';
import { encodedTone, type SimulatedFormat } from './audio-encoding.js';
import type { SimRoute } from './harness.js';
import { businessError } from './minimax-wire.js';

/**
 * The MiniMax fake's `POST /music_generation` (docs/upstreams.md §6.3, `music-2.5`): lyrics required
 * unless instrumental (or `lyrics_optimizer` writes them from the prompt), instrumental only on
 * `music-2.5+` and with a prompt, lyrics structure tags only in MiniMax's own spelling (`[Pre
 * Chorus]`; `[Pre-Chorus]` is refused, so an adapter that forgets to translate is caught).
 * Generation takes `[sim:latency_ms=N]` (in the prompt or lyrics; default 1 s, at most 2 min)
 * before the answer; the song is a clip of the tone, 1 s plus a quarter second per lyrics line
 * (at most 3 s), in `extra_info.music_*`.
 */
export const MUSIC_MODELS = ['music-2.5', 'music-2.5+'] as const;
export const MUSIC_TAGS = [
  'Intro',
  'Verse',
  'Pre Chorus',
  'Chorus',
  'Interlude',
  'Bridge',
  'Outro',
  'Post Chorus',
  'Transition',
  'Break',
  'Hook',
  'Build Up',
  'Inst',
  'Solo',
] as const;
const DEFAULT_LATENCY_MS = 1_000;
const MAX_LATENCY_MS = 120_000;

export const MUSIC_ROUTE: SimRoute = {
  method: 'POST',
  path: /^\/v1\/music_generation$/,
  faultable: true,
  async handle(x) {
    const body = isObject(x.body) ? x.body : {};
    const audio = isObject(body['audio_setting']) ? body['audio_setting'] : {};
    const problem = musicProblem(body, audio);
    if (problem) return x.send(businessError(2013, `invalid params, ${problem}`));
    const texts = [body['prompt'], body['lyrics']];
    const format = (audio['format'] ?? 'mp3') as SimulatedFormat;
    const sampleRate = (audio['sample_rate'] as number | undefined) ?? 44100;
    const bitrate = (audio['bitrate'] as number | undefined) ?? 256000;
    const lines = typeof body['lyrics'] === 'string' ? body['lyrics'].split('\n').length : 0;
    const durationMs = Math.min(3_000, 1_000 + 250 * lines);
    const bytes = encodedTone({ format, sampleRate, bitrate, durationMs });
    return deliverAudio(x, {
      bytes,
      format,
      stream: body['stream'] === true,
      url: body['output_format'] === 'url',
      excludeAggregated: false,
      failAfter: directiveNumber(texts, 'fail_after', 1_000),
      urlTtlMs: directiveNumber(texts, 'url_ttl_ms', 86_400_000),
      latencyMs: directiveNumber(texts, 'latency_ms', MAX_LATENCY_MS) ?? DEFAULT_LATENCY_MS,
      extraInfo: {
        music_duration: durationMs,
        music_sample_rate: sampleRate,
        music_channel: 1,
        bitrate,
        music_size: bytes.length,
      },
    });
  },
};

function musicProblem(body: Record<string, unknown>, audio: Record<string, unknown>): string | undefined {
  const instrumental = body['is_instrumental'] === true;
  const writesLyrics = body['lyrics_optimizer'] === true && typeof body['prompt'] === 'string';
  return firstProblem([
    oneOf('model', body['model'], MUSIC_MODELS, true),
    flag('is_instrumental', body['is_instrumental']),
    flag('lyrics_optimizer', body['lyrics_optimizer']),
    flag('stream', body['stream']),
    instrumental && body['model'] !== 'music-2.5+' ? 'is_instrumental needs music-2.5+' : undefined,
    text('prompt', body['prompt'], instrumental ? 1 : 0, 2000, instrumental),
    text('lyrics', body['lyrics'], 1, 3500, !instrumental && !writesLyrics),
    unknownTag(body['lyrics']),
    oneOf('output_format', body['output_format'], ['hex', 'url']),
    body['stream'] === true && body['output_format'] === 'url' ? 'output_format url needs stream false' : undefined,
    oneOf('audio_setting.sample_rate', audio['sample_rate'], [16000, 24000, 32000, 44100]),
    oneOf('audio_setting.bitrate', audio['bitrate'], [32000, 64000, 128000, 256000]),
    oneOf('audio_setting.format', audio['format'], ['mp3', 'wav', 'pcm']),
  ]);
}

function unknownTag(lyrics: unknown): string | undefined {
  if (typeof lyrics !== 'string') return undefined;
  for (const line of lyrics.split('\n')) {
    const tag = /^\s*\[([^\]]*)\]\s*$/.exec(line)?.[1];
    if (tag !== undefined && !(MUSIC_TAGS as readonly string[]).includes(tag)) return `unknown lyrics tag [${tag}]`;
  }
  return undefined;
}
