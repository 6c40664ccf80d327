import { compileConditional } from '../schema/compile.js';

/**
 * The speech endpoint's body (docs/interface.md §4.9), snake_case as callers send it, and its translation to
 * MiniMax's `/t2a_v2` request (docs/upstreams.md §6.2). Unknown fields are refused at every level,
 * as the house does (a misspelt `voice_settings` would otherwise be silently ignored). Ranges
 * the interface leaves open are MiniMax's: speed [0.5, 2], vol (0, 10].
 */
export const SPEECH_MODELS = ['speech-2.6-hd', 'speech-2.6-turbo'] as const;
export const SPEECH_FORMATS = ['mp3', 'wav', 'pcm', 'flac'] as const;
export const SPEECH_SAMPLE_RATES = [16000, 24000, 32000, 44100] as const;
export const SPEECH_BITRATES = [32000, 64000, 128000, 256000] as const;
export const MAX_SPEECH_CHARACTERS = 10_000;

export type SpeechFormat = (typeof SPEECH_FORMATS)[number];

export interface SpeechRequestBody {
  text: string;
  model?: (typeof SPEECH_MODELS)[number];
  voice_setting?: { voice_id?: string; speed?: number; vol?: number };
  audio_setting?: { format?: SpeechFormat; sample_rate?: number; bitrate?: number };
}

/** The body of POST /api/v1/media/speech (docs/interface.md §4.9); the OpenAPI document shows this object. */
export const speechRequestSchema = {
  type: 'object',
  required: ['text'],
  additionalProperties: false,
  properties: {
    text: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_SPEECH_CHARACTERS,
      pattern: '\\S',
      'x-message': {
        pattern: 'must be text that is not empty or blank',
        minLength: 'must be text that is not empty or blank',
        maxLength: `must be at most ${MAX_SPEECH_CHARACTERS} characters`,
      },
    },
    model: { type: 'string', enum: [...SPEECH_MODELS] },
    voice_setting: {
      type: 'object',
      additionalProperties: false,
      properties: {
        voice_id: {
          type: 'string',
          minLength: 1,
          maxLength: 256,
          pattern: '^\\S+$',
          'x-message': 'must be a voice id: 1 to 256 characters without spaces',
        },
        speed: { type: 'number', minimum: 0.5, maximum: 2, 'x-message': 'must be a number from 0.5 to 2' },
        vol: {
          type: 'number',
          exclusiveMinimum: 0,
          maximum: 10,
          'x-message': 'must be a number above 0 and at most 10',
        },
      },
    },
    audio_setting: {
      type: 'object',
      additionalProperties: false,
      properties: {
        format: { type: 'string', enum: [...SPEECH_FORMATS] },
        sample_rate: { type: 'integer', enum: [...SPEECH_SAMPLE_RATES] },
        bitrate: { type: 'integer', enum: [...SPEECH_BITRATES] },
      },
    },
  },
};

export const speechRequestValidator = compileConditional<SpeechRequestBody>(speechRequestSchema);

/** A validated request with the interface's defaults filled in (docs/interface.md §4.9). */
export interface SpeechRequest {
  readonly text: string;
  readonly model: string;
  readonly voiceId: string;
  readonly speed: number;
  readonly vol: number;
  readonly format: SpeechFormat;
  readonly sampleRate: number;
  readonly bitrate: number;
}

export function speechRequestOf(body: SpeechRequestBody): SpeechRequest {
  return {
    text: body.text,
    model: body.model ?? 'speech-2.6-hd',
    voiceId: body.voice_setting?.voice_id ?? 'female-shaonv',
    speed: body.voice_setting?.speed ?? 1,
    vol: body.voice_setting?.vol ?? 1,
    format: body.audio_setting?.format ?? 'mp3',
    sampleRate: body.audio_setting?.sample_rate ?? 44100,
    bitrate: body.audio_setting?.bitrate ?? 256000,
  };
}

/**
 * MiniMax's request: streamed (the first audio leaves before synthesis ends), without the
 * aggregated audio repeated at the end, mono. `bitrate` only means something for MP3 (MiniMax
 * ignores it otherwise; WAV, PCM and FLAC are lossless at the sample rate), so it is sent only
 * for MP3 and accepted but without effect for the other formats.
 */
export function minimaxSpeechBody(request: SpeechRequest): Record<string, unknown> {
  return {
    model: request.model,
    text: request.text,
    stream: true,
    stream_options: { exclude_aggregated_audio: true },
    output_format: 'hex',
    voice_setting: { voice_id: request.voiceId, speed: request.speed, vol: request.vol },
    audio_setting: {
      format: request.format,
      sample_rate: request.sampleRate,
      channel: 1,
      ...(request.format === 'mp3' ? { bitrate: request.bitrate } : {}),
    },
  };
}

/**
 * The Content-Type of each format. Raw PCM has no registered type for little-endian samples
 * (`audio/L16` is big-endian), so it is `audio/pcm` with the parameters a player needs.
 */
export function speechContentType(request: SpeechRequest): string {
  switch (request.format) {
    case 'mp3':
      return 'audio/mpeg';
    case 'wav':
      return 'audio/wav';
    case 'flac':
      return 'audio/flac';
    case 'pcm':
      return `audio/pcm;rate=${request.sampleRate};channels=1;format=s16le`;
  }
}
