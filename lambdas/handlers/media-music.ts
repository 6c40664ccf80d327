import { defineHandler } from '../http/define-handler.js';
import { answerMusic } from '../media/media-music-call.js';
import { musicRequestValidator } from '../media/music-request.js';

/** POST /api/v1/media/music: one song from a prompt and/or lyrics through the platform's MiniMax key. */
export const handler = defineHandler('media-music', {
  body: musicRequestValidator,
  handle: answerMusic,
});
