import { deploymentAudioDeps } from './audio-deployment.js';
import { composeMusic, type Song } from './music.js';
import type { MusicRequestBody } from './music-request.js';
import type { AccountCall } from '../http/call.js';
import { errorBody } from '../http/error-body.js';
import { httpErrorOf } from '../http/errors.js';
import { DomainError } from '../errors/domain-error.js';
import { jsonKeptAlive, within } from './media-keepalive.js';
import { mediaMetering } from './media-metering.js';
import { binary, envelope, type Reply } from '../http/reply.js';

/**
 * Spaces keep a pending song's stream from idling out (30 s on EDGE endpoints, 5 min on
 * REGIONAL ones); a song ready before the first is answered as ordinary JSON, with its status.
 */
export const MUSIC_KEEPALIVE_MS = 10_000;

/**
 * One song for one call, metered per song after the response. docs/interface.md §2.13's music result:
 * `status` MiniMax's integer (2 = complete), `audio` a URL or hex, `duration` in seconds.
 */
export async function answerMusic(call: AccountCall<MusicRequestBody>): Promise<Reply> {
  const song = composeMusic(
    call.body,
    { signal: call.signal, ...mediaMetering(call, 'songs') },
    deploymentAudioDeps(call.config),
  ).then(songData);
  const early = await within(
    song.then((data) => ({ data })),
    MUSIC_KEEPALIVE_MS,
  );
  if (early) return envelope(early.data);
  const body = song.then(
    (data) => ({ success: true, data }),
    (error: unknown) => {
      // The stream has begun: its failure is a body, translated as the response writer would.
      if (error instanceof DomainError) return errorBody('envelope', httpErrorOf(error));
      throw error;
    },
  );
  return binary('application/json; charset=utf-8', jsonKeptAlive(body, MUSIC_KEEPALIVE_MS));
}

function songData(song: Song) {
  return {
    status: song.status,
    audio: song.audio,
    duration: song.durationMs / 1000,
    sample_rate: song.sampleRate,
    format: song.format,
  };
}
