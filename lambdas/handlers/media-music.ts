import { defineHandler } from '../http/define-handler.js';
import { answerMusic } from '../http/media-music-call.js';
import { musicRequestValidator, type MusicRequestBody } from '../providers/media/music-request.js';

/** POST /api/v1/media/music: one song from a prompt and/or lyrics through the platform's MiniMax key. */
export const handler = defineHandler<MusicRequestBody>('media-music', {
  body: musicRequestValidator,
  handle: answerMusic,
});
