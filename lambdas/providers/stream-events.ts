import type { ChatCompletionChunk, ChunkChoice } from './chat-types.js';
import { UpstreamError } from './upstream-failure.js';

/**
 * What the translators of event-shaped streams (Anthropic's SSE, Bedrock's event stream) share:
 * an event's JSON object read or refused as a malformed upstream answer, and a one-choice chunk
 * of the answer they rebuild. The chat stream fills the chunk's id and time.
 */

/** A malformed-answer failure naming the stream it came from. */
export const malformedStream = (stream: string, message: string): UpstreamError =>
  new UpstreamError({ kind: 'malformed', message: `${stream} stream: ${message}` });

/** An event's data as a JSON object, or a malformed-answer failure. */
export function parseEventObject<T>(stream: string, data: string): T {
  let payload: unknown;
  try {
    payload = JSON.parse(data);
  } catch {
    throw malformedStream(stream, 'unreadable event JSON');
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
    throw malformedStream(stream, 'event is not a JSON object');
  return payload as T;
}

/** A chunk of the answer's one choice. */
export function choiceChunk(
  model: string,
  delta: ChunkChoice['delta'],
  finishReason: ChunkChoice['finish_reason'],
): ChatCompletionChunk {
  return {
    id: '',
    object: 'chat.completion.chunk',
    created: 0,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}
