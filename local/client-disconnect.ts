import type { Writable } from 'node:stream';
import type { RouteSpec } from '../lib/routes.js';
import { isStreamingHandler } from './lambda-streaming.js';

type HandlerLoader = (route: RouteSpec) => Promise<{ handler: unknown }>;
type StreamingHandler = (
  event: { httpMethod?: string; path?: string },
  stream: Writable,
  context: unknown,
) => Promise<void>;

/** The response stream was destroyed because its client left (local/lambda-streaming.ts). */
const leftEarly = (stream: Writable) => stream.destroyed && stream.errored !== null;

/**
 * A client that leaves mid-answer destroys the response stream, and the streaming handler's
 * pipeline then fails with it, or the handler, its call aborted, ends by itself. That is the client's choice, not a gateway failure: it gets
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
        if (!leftEarly(stream)) throw error;
      }
      // Whether the handler's pipeline failed on the closed stream or the handler saw its call
      // aborted and ended on its own, a client that left is told of once.
      if (leftEarly(stream))
        console.warn(`local gateway: client disconnected before the answer ended (${event.httpMethod} ${event.path})`);
    };
    // Copies the streaming marker that awslambda.streamifyResponse put on the handler.
    return { handler: Object.assign(quiet, handler) };
  };
}
