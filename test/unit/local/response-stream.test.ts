import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/** `?sizes=100000,22000` streams one chunk of each size, back to back, filled with its index. */
beforeAll(async () => {
  server = createServer((req, res) => {
    const sizes = new URL(req.url!, 'http://x').searchParams.get('sizes')!.split(',').map(Number);
    const stream = new ResponseStream(res);
    stream.setPrelude({ statusCode: 200, headers: { 'Content-Type': 'application/octet-stream' } });
    void pipeline(Readable.from(sizes.map((size, i) => Buffer.alloc(size, 0x61 + (i % 26)))), stream);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

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
