import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ResponseStream } from '../../../local/lambda-streaming.js';
import { RawHttpConnection } from '../../support/raw-http.js';

/**
 * The local response stream's HTTP framing, read byte for byte: what middy's streamify mode
 * does (a pipeline into the stream) with bodies large enough that the socket pushes back.
 */
let server: Server;
let baseUrl: string;

/** What the server's socket was handed for each response, by `?id=`: one entry per write to the kernel. */
const socketWrites = new Map<string, Buffer[]>();

/** Counts the socket's writes (each a system call), recording the bytes of each. */
function recordSocketWrites(res: ServerResponse, into: Buffer[]): void {
  const socket = res.socket as Socket & {
    _write(chunk: Buffer | string, encoding: BufferEncoding, cb: () => void): void;
    _writev(chunks: { chunk: Buffer | string; encoding: BufferEncoding }[], cb: () => void): void;
  };
  const bytes = (chunk: Buffer | string, encoding: BufferEncoding) =>
    typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk;
  const write = socket._write.bind(socket);
  const writev = socket._writev.bind(socket);
  socket._write = (chunk, encoding, cb) => {
    into.push(bytes(chunk, encoding));
    write(chunk, encoding, cb);
  };
  socket._writev = (chunks, cb) => {
    into.push(Buffer.concat(chunks.map(({ chunk, encoding }) => bytes(chunk, encoding))));
    writev(chunks, cb);
  };
}

/**
 * `?sizes=100000,22000` streams one chunk of each size, back to back, filled with its index.
 * `?frames=5&id=x` writes the prelude, then five SSE frames in one later tick, then ends.
 */
beforeAll(async () => {
  server = createServer((req, res) => {
    const query = new URL(req.url!, 'http://x').searchParams;
    if (query.has('frames')) return framesInOneTick(res, Number(query.get('frames')), query.get('id')!);
    const sizes = query.get('sizes')!.split(',').map(Number);
    const stream = new ResponseStream(res);
    stream.setPrelude({ statusCode: 200, headers: { 'Content-Type': 'application/octet-stream' } });
    void pipeline(Readable.from(sizes.map((size, i) => Buffer.alloc(size, 0x61 + (i % 26)))), stream);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

const frame = (i: number) => `data: {"index":${i}}\n\n`;

function framesInOneTick(res: ServerResponse, frames: number, id: string): void {
  const writes: Buffer[] = [];
  socketWrites.set(id, writes);
  recordSocketWrites(res, writes);
  const stream = new ResponseStream(res);
  stream.setPrelude({ statusCode: 200, headers: { 'Content-Type': 'text/event-stream' } });
  // As middy's streamify mode does: the empty write that flushes the prelude, then the frames of
  // one upstream read, written in one tick, then the end.
  stream.write(Buffer.alloc(0));
  setImmediate(() => {
    for (let i = 0; i < frames; i++) stream.write(Buffer.from(frame(i)));
    setImmediate(() => stream.end());
  });
}

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
});

const expected = (sizes: number[]) => Buffer.concat(sizes.map((size, i) => Buffer.alloc(size, 0x61 + (i % 26))));

describe('ResponseStream framing', () => {
  test.each([
    [[100_000, 22_000]],
    [[70_000, 1, 70_000, 5]],
    [[1_000, 200_000, 3, 65_536, 65_537]],
    [Array.from({ length: 300 }, (_, i) => 100 + i * 13)],
  ])('every byte arrives inside the chunked body, before the terminator (%#)', async (sizes) => {
    const connection = await RawHttpConnection.open(baseUrl);
    try {
      // Several responses on one kept-alive socket: stray bytes after a terminator break the next.
      for (let run = 0; run < 5; run++) {
        const response = await connection.request('GET', `/?sizes=${sizes.join(',')}`, {});
        expect(response.status).toBe(200);
        expect(response.headers['transfer-encoding']).toBe('chunked');
        expect(response.body.equals(expected(sizes))).toBe(true);
      }
    } finally {
      connection.close();
    }
  });
});

describe('ResponseStream writes', () => {
  test("a tick's frames leave in one socket write, framed as one chunk", async () => {
    const connection = await RawHttpConnection.open(baseUrl);
    try {
      const response = await connection.request('GET', '/?frames=5&id=one-tick', {});
      const body = Array.from({ length: 5 }, (_, i) => frame(i)).join('');
      expect(response.status).toBe(200);
      expect(response.body.toString()).toBe(body);
      const writes = socketWrites.get('one-tick')!.map((bytes) => bytes.toString('latin1'));
      // The head, the tick's chunk (size, frames, CRLF) in one write, and the terminating chunk.
      const chunk = `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n`;
      expect(writes.slice(1).join('')).toBe(`${chunk}0\r\n\r\n`);
      expect(writes[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n$/);
      expect(writes.slice(1, -1)).toEqual([chunk]);
    } finally {
      connection.close();
    }
  });
});
