import type { FashionStreamEvent } from './subscribe-events.js';
import type { SseFrame } from '../http/reply.js';

/** The public path a caller polls once a subscribe stream has run its 2 minutes. */
export const fashionStatusPath = (predictionId: string) => `/api/v1/fashion/status/${encodeURIComponent(predictionId)}`;

/**
 * docs/interface.md §6.3: each event as `event: fashion` + JSON, then `data: [DONE]` (under the same event
 * name, so an EventSource listening for `fashion` sees the end too).
 */
export async function* fashionFrames(events: AsyncIterable<FashionStreamEvent>): AsyncGenerator<SseFrame> {
  for await (const event of events) {
    yield {
      event: 'fashion',
      data: event.type === 'still_running' ? { ...event, status_url: fashionStatusPath(event.prediction_id) } : event,
    };
  }
  yield { event: 'fashion', data: '[DONE]' };
}
