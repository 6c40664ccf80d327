import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';

/**
 * The part of Lambda's Node.js runtime that response-streaming handlers use: the global
 * `awslambda.streamifyResponse` and `awslambda.HttpResponseStream.from`. Installed before any
 * handler module loads, so middy's streamify mode runs here exactly as it does in Lambda:
 * the prelude (status and headers) goes out on the first write.
 */
type StreamingHandler = (event: unknown, responseStream: Writable, context: unknown) => Promise<void>;

export interface Prelude {
  statusCode?: number;
  headers?: Record<string, string>;
}

const STREAMING = Symbol.for('gateway.local.streamingHandler');

export function installLambdaStreamingGlobals(): void {
  // Other libraries (Powertools' invoke store) may have created the global already: extend it.
  const g = globalThis as { awslambda?: Record<string, unknown> };
  const awslambda = (g.awslambda ??= {});
  awslambda['streamifyResponse'] ??= (handler: StreamingHandler) => Object.assign(handler, { [STREAMING]: true });
  awslambda['HttpResponseStream'] ??= {
    from: (stream: ResponseStream, prelude: Prelude) => {
      stream.setPrelude(prelude);
      return stream;
    },
  };
}

export function isStreamingHandler(handler: unknown): handler is StreamingHandler {
  return typeof handler === 'function' && (handler as unknown as Record<symbol, unknown>)[STREAMING] === true;
}

/**
 * The response stream a streaming handler writes to, backed by a Node HTTP response. A client
 * that disconnects destroys it, as Lambda does, so the handler's pipeline ends.
 */
export class ResponseStream extends Writable {
  private prelude: Prelude = {};
  private bodyStarted = false;
  private corked = false;

  constructor(private readonly res: ServerResponse) {
    super();
    res.on('close', () => {
      if (!res.writableFinished) this.destroy(new Error('client disconnected'));
    });
    // A client may leave before the handler writes anything (a slow JSON answer): nobody listens
    // yet, and an unheard 'error' would take the whole server down. The writer still learns of
    // it from its own writes, as it does in Lambda.
    this.on('error', () => undefined);
  }

  setPrelude(prelude: Prelude): void {
    this.prelude = prelude;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.sendHeadOnce();
    this.corkForThisTick();
    if (chunk.length === 0) {
      // The empty write that flushes the prelude: it leaves with whatever the handler writes in
      // this tick (a JSON answer, the first SSE frame), or alone at the end of the tick.
      callback();
      return;
    }
    this.bodyStarted = true;
    if (this.res.write(chunk)) callback();
    else this.res.once('drain', () => callback());
  }

  /** Writes made in one tick (several SSE frames from one upstream read) share one packet. */
  private corkForThisTick(): void {
    if (this.corked) return;
    this.corked = true;
    this.res.cork();
    process.nextTick(() => {
      this.releaseCork();
      if (!this.bodyStarted && !this.res.writableEnded) this.res.flushHeaders();
    });
  }

  /**
   * While corked, Node holds the tick's writes in the response's own chunk buffer, and
   * `res.end()` sends the terminating chunk ahead of that buffer. So the cork is released before
   * the end, never after it: otherwise the last writes would follow `0\r\n\r\n` on the wire.
   * The response's uncork uncorks the socket first and then hands it the chunk's pieces (its
   * size, each write, its CRLFs) one by one, each a system call of its own; corking the socket
   * across it sends them as one.
   */
  private releaseCork(): void {
    if (!this.corked) return;
    this.corked = false;
    const socket = this.res.socket;
    socket?.cork();
    this.res.uncork();
    socket?.uncork();
  }

  /**
   * A handler whose body fails mid-stream: Lambda ends such a response without its last chunk,
   * so the client sees it cut, never complete. The same here: the connection is cut.
   */
  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (error && !this.res.writableEnded) this.res.destroy();
    callback(error);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.sendHeadOnce();
    this.releaseCork();
    this.res.end(callback);
  }

  private sendHeadOnce(): void {
    if (this.res.headersSent) return;
    this.res.writeHead(this.prelude.statusCode ?? 200, this.prelude.headers ?? {});
  }
}
