import { defineHandler } from '../http/define-handler.js';
import { answerVideoSubmit } from '../media/video-call.js';
import { videoRequestValidator } from '../media/video-request.js';

/** POST /api/v1/media/video: submits a video job through the platform's MiniMax key. */
export const handler = defineHandler('media-video', {
  body: videoRequestValidator,
  handle: answerVideoSubmit,
});
