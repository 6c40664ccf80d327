import type { Writable } from 'node:stream';
import type { RouteSpec } from '../lib/routes.js';
import { isStreamingHandler } from './lambda-streaming.js';

type HandlerLoader = (route: RouteSpec) => Promise<{ handler: unknown }>;
type StreamingHandler = (
  event: { httpMethod?: string; path?: string },
  stream: Writable,
  context: unknown,
) => Promise<void>;

/**
 * A client that leaves mid-answer destroys the response stream, and the streaming handler's
 * pipeline then fails with it. That is the client's choice, not a gateway failure: it gets
 * one log line instead of the server's stack trace for a failed request. Any other failure
 * passes through unchanged.
 */
export function quietClientDisconnects(loadHandler: HandlerLoader): HandlerLoader {
  return async (route) => {
    const { handler } = await loadHandler(route);
    if (!isStreamingHandler(handler)) return { handler };
    const streaming = handler as unknown as StreamingHandler;
    const quiet: StreamingHandler = async (event, stream, context) => {
      try {
        await streaming(event, stream, context);
      } catch (error) {
        if (!stream.destroyed || !stream.errored) throw error;
        console.warn(`local gateway: client disconnected before the answer ended (${event.httpMethod} ${event.path})`);
      }
    };
    // Copies the streaming marker that awslambda.streamifyResponse put on the handler.
    return { handler: Object.assign(quiet, handler) };
  };
}
