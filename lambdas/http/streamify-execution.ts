import type { PluginExecutionMode } from '@middy/core';
import { finished } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ReadableStream } from 'node:stream/web';
import type { Readable, Writable } from 'node:stream';

/**
 * middy's streamify execution mode (@middy/core/StreamifyResponse), with one change: a Readable
 * body is pumped into the response stream directly instead of through `stream.pipeline`.
 * pipeline's machinery (end-of-stream watchers on both ends, an AbortController aborted with a
 * fresh DOMException at every finish) cost about 60 µs per streamed response, in Lambda as in
 * the local runtime, several times what writing the frames costs. Everything else (the prelude,
 * string bodies, web streams, the requestEnd hook, error precedence) is middy's, line for line.
 */

interface MiddyInternals {
  middyRequest(event: unknown, context: unknown): unknown;
  runRequest(
    request: unknown,
    before: unknown[],
    handler: unknown,
    after: unknown[],
    onError: unknown[],
    plugin: unknown,
  ): Promise<HandlerResponse | undefined>;
}

interface HandlerResponse {
  statusCode?: number;
  body?: unknown;
  [key: string]: unknown;
}

interface Plugin {
  requestStart(request: unknown): void;
  requestEnd(request: unknown): unknown;
}

interface LambdaStreamingGlobals {
  streamifyResponse<H>(handler: H): H;
  HttpResponseStream: { from(stream: Writable, prelude: Record<string, unknown>): Writable };
}

declare const awslambda: LambdaStreamingGlobals;

type StreamingHandler = ((event: unknown, responseStream: Writable, context: unknown) => Promise<void>) & {
  handler?: (replace: unknown) => StreamingHandler;
};

export const executionModeStreamedBody = ((
  { middyRequest, runRequest }: MiddyInternals,
  beforeMiddlewares: unknown[],
  initialHandler: unknown,
  afterMiddlewares: unknown[],
  onErrorMiddlewares: unknown[],
  plugin: Plugin,
): StreamingHandler => {
  let lambdaHandler = initialHandler;
  const middy: StreamingHandler = awslambda.streamifyResponse(
    async (event: unknown, lambdaResponseStream: Writable, context: unknown) => {
      const request = middyRequest(event, context);
      plugin.requestStart(request);
      const handlerResponse = await runRequest(
        request,
        beforeMiddlewares,
        lambdaHandler,
        afterMiddlewares,
        onErrorMiddlewares,
        plugin,
      );
      let responseStream = lambdaResponseStream;
      let handlerBody: unknown = handlerResponse ?? '';
      if (handlerResponse?.statusCode) {
        const { body, ...restResponse } = handlerResponse;
        handlerBody = body ?? '';
        responseStream = awslambda.HttpResponseStream.from(responseStream, restResponse);
        responseStream.write('');
      }

      let handlerError: unknown;
      let hasError = false;
      try {
        if (typeof handlerBody === 'string') {
          await writeString(responseStream, handlerBody);
        } else if (isReadable(handlerBody)) {
          await pump(handlerBody, responseStream);
        } else if (handlerBody instanceof ReadableStream) {
          await pipeline(handlerBody, responseStream);
        } else {
          throw new Error('handler response not a Readable or ReadableStream', {
            cause: { package: '@middy/core' },
          });
        }
      } catch (err) {
        handlerError = err;
        hasError = true;
      }
      try {
        const requestEndResult = plugin.requestEnd(request);
        if (requestEndResult instanceof Promise) await requestEndResult;
      } catch (hookErr) {
        if (hasError) {
          if (typeof handlerError === 'object' && handlerError !== null) {
            (handlerError as { cause?: unknown }).cause ??= hookErr;
          }
        } else {
          throw hookErr;
        }
      }
      if (hasError) throw handlerError;
    },
  );
  middy.handler = (replaceLambdaHandler: unknown) => {
    lambdaHandler = replaceLambdaHandler;
    return middy;
  };
  return middy;
}) as unknown as PluginExecutionMode;

const isReadable = (body: unknown): body is Readable =>
  typeof body === 'object' && body !== null && '_readableState' in body;

/** As middy writes a string body: at once when short, else in 16 KiB slices with backpressure. */
const CHUNK_SIZE = 16_384;

async function writeString(stream: Writable, body: string): Promise<void> {
  if (body.length <= CHUNK_SIZE) {
    stream.write(body);
  } else {
    let position = 0;
    while (position < body.length) {
      const next = position + CHUNK_SIZE;
      const ok = stream.write(body.substring(position, next));
      position = next;
      if (!ok && position < body.length) await drained(stream);
    }
  }
  await new Promise<void>((resolve, reject) => {
    stream.once('error', reject);
    stream.end(resolve);
  });
}

const drained = (stream: Writable) => new Promise<void>((resolve) => stream.once('drain', () => resolve()));

/**
 * `pipeline(body, out)` for one source and one sink, as it fails: any failure destroys both
 * streams with its error, so a body that fails cuts the response (the client sees it cut,
 * never complete), and a response stream that closes first (the client left) stops the work
 * feeding the body at once. As with pipeline, a failure is reported only once both streams are
 * done: what the producer does as it stops (its `finally`, metering a cut stream) has happened
 * before the handler's work after the response runs. Resolves when the response has finished.
 */
export function pump(body: Readable, out: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false;
    const detach = () => {
      body.off('data', onData).off('end', onEnd).off('close', onBodyClose);
      out.off('drain', onDrain).off('finish', onFinish).off('close', onOutClose);
    };
    const fail = (error: Error) => {
      if (done) return;
      done = true;
      detach();
      body.destroy(error);
      out.destroy(error);
      let open = 2;
      const closed = () => {
        if (--open === 0) reject(error);
      };
      finished(body, closed);
      finished(out, closed);
    };
    const onData = (chunk: unknown) => {
      if (!out.write(chunk)) body.pause();
    };
    const onDrain = () => body.resume();
    const onEnd = () => out.end();
    const onFinish = () => {
      if (done) return;
      done = true;
      detach();
      resolve();
    };
    const onBodyClose = () => {
      if (!body.readableEnded) fail(body.errored ?? prematureClose());
    };
    const onOutClose = () => {
      if (!out.writableFinished) fail(out.errored ?? prematureClose());
    };
    // Stay attached: a stream destroyed here still emits its error afterwards.
    body.on('error', fail);
    out.on('error', fail);
    body.on('data', onData).on('end', onEnd).on('close', onBodyClose);
    out.on('drain', onDrain).on('finish', onFinish).on('close', onOutClose);
    if (out.destroyed) onOutClose();
  });
}

function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}
