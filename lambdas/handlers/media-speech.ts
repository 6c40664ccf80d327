import { defineHandler } from '../http/define-handler.js';
import { answerSpeech } from '../media/media-speech-call.js';
import { speechRequestValidator } from '../media/speech-request.js';

/** POST /api/v1/media/speech: text to audio (mp3, wav, pcm or flac) through the platform's MiniMax key. */
export const handler = defineHandler('media-speech', {
  body: speechRequestValidator,
  handle: answerSpeech,
});
