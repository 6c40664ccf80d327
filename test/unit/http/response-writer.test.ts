import { jest } from '@jest/globals';
import { Readable } from 'node:stream';
import { binary, bare, envelope, noContent, sse, type SseFrame } from '../../../lambdas/http/reply.js';
import {
  formatSseFrame,
  HEARTBEAT_FRAME,
  toProxyResult,
  toStreamResult,
  withHeartbeats,
} from '../../../lambdas/http/response-writer.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function* framesOf(...frames: SseFrame[]): AsyncGenerator<SseFrame> {
  yield* frames;
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

async function readAll(body: string | Readable): Promise<Buffer> {
  if (typeof body === 'string') return Buffer.from(body);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as string | Uint8Array));
  return Buffer.concat(chunks);
}

const BASE = { 'X-Request-ID': 'req-1', 'Content-Type': 'text/plain' };

describe('toProxyResult', () => {
  test('json: serialised body, JSON content type over the base headers, reply headers last', () => {
    expect(toProxyResult(envelope({ a: 1 }, 201, { 'X-Cache': 'MISS' }), BASE)).toEqual({
      statusCode: 201,
      headers: { 'X-Request-ID': 'req-1', 'Content-Type': 'application/json; charset=utf-8', 'X-Cache': 'MISS' },
      body: '{"success":true,"data":{"a":1}}',
      isBase64Encoded: false,
    });
    expect(toProxyResult(bare({ id: 'x' }), {}).body).toBe('{"id":"x"}');
  });

  test('empty: no body and no content type added', () => {
    expect(toProxyResult(noContent({ 'X-Extra': '1' }), { 'X-Request-ID': 'req-1' })).toEqual({
      statusCode: 204,
      headers: { 'X-Request-ID': 'req-1', 'X-Extra': '1' },
      body: '',
      isBase64Encoded: false,
    });
  });

  test('binary bytes: base64 body with its content type', () => {
    const bytes = Uint8Array.from([0, 1, 2, 0xfe, 0xff]);
    const result = toProxyResult(binary('audio/mpeg', bytes), BASE);
    expect(result.statusCode).toBe(200);
    expect(result.headers['Content-Type']).toBe('audio/mpeg');
    expect(result.isBase64Encoded).toBe(true);
    expect(Array.from(Buffer.from(result.body, 'base64'))).toEqual([0, 1, 2, 0xfe, 0xff]);
  });

  test('a streamed binary body and SSE are refused on a buffered route', () => {
    async function* bytes() {
      yield Uint8Array.from([1]);
    }
    expect(() => toProxyResult(binary('audio/mpeg', bytes()), {})).toThrow(
      'a streamed binary body needs a streaming route',
    );
    expect(() => toProxyResult(sse(framesOf({ data: 'x' })), {})).toThrow('an SSE reply needs a streaming route');
  });
});

describe('toStreamResult', () => {
  test('sse: 200, event-stream headers, the formatted frames as the body', async () => {
    const result = toStreamResult(
      sse(framesOf({ event: 'a', data: { n: 1 } }, { data: '[DONE]' }), { 'X-Model-Used': 'm' }),
      BASE,
      {
        heartbeatMs: 10_000,
      },
    );
    expect(result.statusCode).toBe(200);
    expect(result.headers).toEqual({
      'X-Request-ID': 'req-1',
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      'X-Accel-Buffering': 'no',
      'X-Model-Used': 'm',
    });
    expect((await readAll(result.body)).toString()).toBe('event: a\ndata: {"n":1}\n\ndata: [DONE]\n\n');
  });

  test('sse: a body destroyed while its producer waits (the client left) ends the call at once', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    async function* waiting(): AsyncGenerator<SseFrame> {
      yield { data: 'first' };
      await released; // an upstream that has not sent its first token
    }
    let closed = 0;
    const { body } = toStreamResult(sse(waiting()), {}, { heartbeatMs: 10_000, onClose: () => closed++ });
    const readable = body as Readable;
    readable.on('error', () => undefined); // the pipeline's concern, not this test's
    await new Promise((resolve) => readable.once('data', resolve));
    readable.destroy(new Error('client disconnected'));
    expect(closed).toBe(1);
    release();
  });

  test('binary from bytes and from an async iterable', async () => {
    const fromBytes = toStreamResult(binary('image/png', Uint8Array.from([9, 8, 7]), 201), {}, { heartbeatMs: 1000 });
    expect(fromBytes.statusCode).toBe(201);
    expect(fromBytes.headers['Content-Type']).toBe('image/png');
    expect(Array.from(await readAll(fromBytes.body))).toEqual([9, 8, 7]);

    async function* chunks() {
      yield Uint8Array.from([1, 2]);
      await sleep(1);
      yield Uint8Array.from([3]);
    }
    const fromIterable = toStreamResult(binary('audio/mpeg', chunks()), {}, { heartbeatMs: 1000 });
    expect(Array.from(await readAll(fromIterable.body))).toEqual([1, 2, 3]);
  });

  test('json and empty replies keep their status and a string body', () => {
    const json = toStreamResult(bare({ error: 'x' }, 404), BASE, { heartbeatMs: 1000 });
    expect(json).toEqual({
      statusCode: 404,
      headers: { 'X-Request-ID': 'req-1', 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': '13' },
      body: '{"error":"x"}',
    });
    expect(toStreamResult(noContent(), {}, { heartbeatMs: 1000 })).toEqual({ statusCode: 204, headers: {}, body: '' });
  });
});

describe('formatSseFrame', () => {
  test('an object is sent as one JSON data line', () => {
    expect(formatSseFrame({ data: { text: 'a\nb', n: 1 } })).toBe('data: {"text":"a\\nb","n":1}\n\n');
  });

  test('a string is sent as it is', () => {
    expect(formatSseFrame({ data: '[DONE]' })).toBe('data: [DONE]\n\n');
    expect(formatSseFrame({ data: '{"already":"json"}' })).toBe('data: {"already":"json"}\n\n');
  });

  test('an event name comes first', () => {
    expect(formatSseFrame({ event: 'error', data: { code: 'X' } })).toBe('event: error\ndata: {"code":"X"}\n\n');
  });

  test('multi-line data becomes several data lines, whatever the line ending', () => {
    expect(formatSseFrame({ data: 'one\ntwo\r\nthree\rfour' })).toBe(
      'data: one\ndata: two\ndata: three\ndata: four\n\n',
    );
    expect(formatSseFrame({ event: 'note', data: 'trailing\n' })).toBe('event: note\ndata: trailing\ndata: \n\n');
  });

  test('empty string and non-string scalars', () => {
    expect(formatSseFrame({ data: '' })).toBe('data: \n\n');
    expect(formatSseFrame({ data: 42 })).toBe('data: 42\n\n');
    expect(formatSseFrame({ data: null })).toBe('data: null\n\n');
  });
});

describe('withHeartbeats', () => {
  const A = { event: 'tick', data: { n: 0 } };
  const B = { event: 'tick', data: { n: 1 } };
  const C = { data: '[DONE]' };

  test('without idle gaps: exactly the frames, in order, no heartbeat', async () => {
    expect(await collect(withHeartbeats(framesOf(A, B, C), 1000))).toEqual([A, B, C].map(formatSseFrame));
  });

  test('a slow producer gets heartbeats between frames, and no frame is lost or reordered', async () => {
    async function* slow(): AsyncGenerator<SseFrame> {
      yield A;
      await sleep(50);
      yield B;
      await sleep(50);
      yield C;
    }
    const out = await collect(withHeartbeats(slow(), 20));
    expect(out.filter((chunk) => chunk !== HEARTBEAT_FRAME)).toEqual([A, B, C].map(formatSseFrame));
    expect(out[0]).toBe(formatSseFrame(A));
    expect(out.at(-1)).toBe(formatSseFrame(C));
    const indexB = out.indexOf(formatSseFrame(B));
    expect(out.slice(1, indexB)).toContain(HEARTBEAT_FRAME);
    expect(out.slice(indexB + 1, -1)).toContain(HEARTBEAT_FRAME);
    expect(out.slice(1, -1).every((chunk) => chunk === HEARTBEAT_FRAME || chunk === formatSseFrame(B))).toBe(true);
  });

  test('a heartbeat comes first when the producer is slow to start', async () => {
    async function* late(): AsyncGenerator<SseFrame> {
      await sleep(40);
      yield A;
    }
    const out = await collect(withHeartbeats(late(), 10));
    expect(out[0]).toBe(HEARTBEAT_FRAME);
    expect(out.at(-1)).toBe(formatSseFrame(A));
    expect(HEARTBEAT_FRAME).toBe(': keep-alive\n\n');
  });

  test('a consumer that stops after a frame runs the producer’s finally', async () => {
    let finallyRan = false;
    async function* producer(): AsyncGenerator<SseFrame> {
      try {
        yield A;
        yield B;
      } finally {
        finallyRan = true;
      }
    }
    const seen: string[] = [];
    for await (const chunk of withHeartbeats(producer(), 1000)) {
      seen.push(chunk);
      break;
    }
    expect(seen).toEqual([formatSseFrame(A)]);
    expect(finallyRan).toBe(true);
  });

  test('a consumer that stops on a heartbeat, while a frame is pending, still runs the producer’s finally', async () => {
    let finallyRan = false;
    let producedAfterStop = 0;
    async function* producer(): AsyncGenerator<SseFrame> {
      try {
        yield A;
        await sleep(40);
        producedAfterStop++;
        yield B;
        producedAfterStop++;
        yield C;
      } finally {
        finallyRan = true;
      }
    }
    const seen: string[] = [];
    for await (const chunk of withHeartbeats(producer(), 10)) {
      seen.push(chunk);
      if (chunk === HEARTBEAT_FRAME) break;
    }
    expect(seen).toEqual([formatSseFrame(A), HEARTBEAT_FRAME]);
    expect(finallyRan).toBe(true);
    expect(producedAfterStop).toBe(1); // the pending frame completed; nothing after it ran
  });

  test('a producer error reaches the consumer after the frames before it', async () => {
    async function* failing(): AsyncGenerator<SseFrame> {
      yield A;
      throw new Error('upstream cut');
    }
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of withHeartbeats(failing(), 1000)) seen.push(chunk);
      })(),
    ).rejects.toThrow('upstream cut');
    expect(seen).toEqual([formatSseFrame(A)]);
  });

  test('one timer serves a whole stream, however many frames (a timer per frame was a share of its CPU)', async () => {
    const frames = Array.from({ length: 1000 }, (_, n): SseFrame => ({ data: { n } }));
    const timers = jest.spyOn(globalThis, 'setTimeout');
    try {
      expect(await collect(withHeartbeats(framesOf(...frames), 1000))).toEqual(frames.map(formatSseFrame));
      expect(timers.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      timers.mockRestore();
    }
  });

  test('a plain async iterable (not a generator) works too', async () => {
    const frames = [A, B];
    const iterable: AsyncIterable<SseFrame> = {
      [Symbol.asyncIterator]: () => {
        let i = 0;
        return {
          next: async () =>
            i < frames.length ? { value: frames[i++]!, done: false } : { value: undefined, done: true },
        };
      },
    };
    expect(await collect(withHeartbeats(iterable, 1000))).toEqual([A, B].map(formatSseFrame));
  });
});
