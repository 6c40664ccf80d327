import { UpstreamError, upstreamFailure } from '../providers/upstream-failure.js';
import { MediaError, mediaErrorOf } from './media-errors.js';
import type { AudioAttempt, AudioDeps } from './audio-deployment.js';
import { callMinimax } from './minimax-call.js';
import { minimaxMusicBody, type MusicRequestBody } from './music-request.js';

/**
 * One song through MiniMax (`/music_generation`, blocking until the song is done: tens of
 * seconds to minutes). Reported once through `onAttempt`: one song when complete, none when
 * not. `status` is MiniMax's: 1 in progress, 2 complete (a blocking call answers 2).
 */
export interface MusicCallOptions {
  readonly signal: AbortSignal;
  readonly onAttempt: (attempt: AudioAttempt) => void;
  /** Before the upstream call, for its one song: may refuse it (a budget). @default every call goes */
  readonly admit?: (model: string, songs: number) => Promise<void>;
}

export interface Song {
  readonly status: number;
  /** A URL (valid 24 h) or the hex of the file, as asked. */
  readonly audio: string;
  readonly durationMs: number;
  readonly sampleRate: number;
  readonly format: string;
}

export async function composeMusic(body: MusicRequestBody, options: MusicCallOptions, deps: AudioDeps): Promise<Song> {
  const upstreamBody = minimaxMusicBody(body);
  const model = upstreamBody['model'] as string;
  const endpoint = await deps.endpoint();
  if (!endpoint) throw new MediaError('not_configured', 'music is not configured on this deployment');
  await options.admit?.(model, 1);
  try {
    const answer = await callMinimax(
      endpoint,
      { method: 'POST', path: '/music_generation', body: upstreamBody },
      { send: deps.send, signal: options.signal },
    );
    const song = songOf(answer.body);
    options.onAttempt({ model, quantity: 1, estimated: false, status: 200, outcome: 'ok' });
    return song;
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    const { failure } = error;
    options.onAttempt({ model, quantity: 0, estimated: false, status: failure.status ?? 0, outcome: failure.kind });
    throw mediaErrorOf(failure, body.lyrics === undefined ? 'prompt' : 'lyrics');
  }
}

function songOf(body: Readonly<Record<string, unknown>>): Song {
  const data = body['data'] as { audio?: unknown; status?: unknown } | null | undefined;
  const extra = (body['extra_info'] ?? {}) as { music_duration?: unknown; music_sample_rate?: unknown };
  if (typeof data?.audio !== 'string' || data.audio === '' || data.status !== 2)
    throw new UpstreamError(
      upstreamFailure('malformed', 'MiniMax music: an answer without a complete song', { status: 200 }),
    );
  return {
    status: data.status,
    audio: data.audio,
    durationMs: typeof extra.music_duration === 'number' ? extra.music_duration : 0,
    sampleRate: typeof extra.music_sample_rate === 'number' ? extra.music_sample_rate : 44100,
    format: 'mp3',
  };
}
