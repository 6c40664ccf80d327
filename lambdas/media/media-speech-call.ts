import { deploymentAudioDeps } from './audio-deployment.js';
import { synthesizeSpeech } from './speech.js';
import { speechRequestOf, type SpeechRequestBody } from './speech-request.js';
import type { AccountCall } from '../http/call.js';
import { mediaMetering } from './media-metering.js';
import { binary, type Reply } from '../http/reply.js';

/**
 * One speech synthesis for one call: the audio streamed through the binary response writer as
 * MiniMax produces it, metered by characters after the response.
 */
export async function answerSpeech(call: AccountCall<SpeechRequestBody>): Promise<Reply> {
  const speech = await synthesizeSpeech(
    speechRequestOf(call.body),
    { signal: call.signal, ...mediaMetering(call, 'characters') },
    deploymentAudioDeps(call.config),
  );
  return binary(speech.contentType, speech.audio);
}
