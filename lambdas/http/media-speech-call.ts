import { deploymentAudioDeps } from '../providers/media/audio-deployment.js';
import { MediaError } from '../providers/media/media-errors.js';
import { synthesizeSpeech } from '../providers/media/speech.js';
import { speechRequestOf, type SpeechRequestBody } from '../providers/media/speech-request.js';
import type { GatewayCall } from './call.js';
import { mediaHttpError } from './media-error-mapping.js';
import { mediaMeter } from './media-metering.js';
import { binary, type Reply } from './reply.js';

/**
 * One speech synthesis for one call: the audio streamed through the binary response writer as
 * MiniMax produces it, metered by characters after the response.
 */
export async function answerSpeech(call: GatewayCall<SpeechRequestBody>): Promise<Reply> {
  try {
    const speech = await synthesizeSpeech(
      speechRequestOf(call.body),
      { signal: call.signal, onAttempt: mediaMeter(call, 'characters') },
      deploymentAudioDeps,
    );
    return binary(speech.contentType, speech.audio);
  } catch (error) {
    throw error instanceof MediaError ? mediaHttpError(error) : error;
  }
}
