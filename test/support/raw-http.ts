import { connect, type Socket } from 'node:net';

/**
 * HTTP/1.1 over a bare TCP socket, read strictly: the status line, the headers, and a body
 * framed by Content-Length or by chunked transfer coding, byte for byte. Lenient clients (fetch,
 * the openai SDK) hide framing errors, such as data after the terminating chunk; this reader
 * fails on them. Responses are read one after another from the same kept-alive socket, so stray
 * bytes after one response make the next one unreadable.
 */
export interface RawResponse {
  readonly status: number;
  /** Header names lower-cased; a repeated header keeps its last value. */
  readonly headers: Readonly<Record<string, string>>;
  /** The header lines exactly as received, in order. */
  readonly headerLines: readonly string[];
  readonly body: Buffer;
  /** How many data chunks the body came in (0 for a Content-Length body). */
  readonly chunks: number;
}

export class FramingError extends Error {}

const CRLF = Buffer.from('\r\n');
const HEX = /^[0-9a-f]+$/i;

export class RawHttpConnection {
  private buffered: Buffer = Buffer.alloc(0);
  private ended = false;
  private wake?: () => void;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (data: Buffer) => {
      this.buffered = this.buffered.length === 0 ? data : Buffer.concat([this.buffered, data]);
      this.wake?.();
    });
    const end = () => {
      this.ended = true;
      this.wake?.();
    };
    socket.on('end', end);
    socket.on('close', end);
    socket.on('error', end);
  }

  static open(baseUrl: string): Promise<RawHttpConnection> {
    const url = new URL(baseUrl);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => resolve(new RawHttpConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends one request on the kept-alive socket and reads its whole response. */
  async request(method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawResponse> {
    if (this.buffered.length > 0)
      throw new FramingError(`bytes after the previous response: ${preview(this.buffered)}`);
    const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
    const head = [`${method} ${path} HTTP/1.1`, 'Host: localhost', 'Connection: keep-alive'];
    for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`);
    if (body !== undefined) head.push(`Content-Length: ${payload.length}`);
    this.socket.write(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), payload]));
    return this.readResponse();
  }

  close(): void {
    this.socket.destroy();
  }

  private async readResponse(): Promise<RawResponse> {
    const statusLine = await this.readLine();
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine);
    if (!status) throw new FramingError(`not a status line: ${JSON.stringify(statusLine.slice(0, 80))}`);
    const headers: Record<string, string> = {};
    const headerLines: string[] = [];
    for (let line = await this.readLine(); line !== ''; line = await this.readLine()) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw new FramingError(`not a header line: ${JSON.stringify(line.slice(0, 80))}`);
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      headerLines.push(line);
    }
    const head = { status: Number(status[1]), headers, headerLines };
    if (headers['transfer-encoding'] === 'chunked') return { ...head, ...(await this.readChunked()) };
    const length = Number(headers['content-length'] ?? 0);
    return { ...head, body: await this.readBytes(length), chunks: 0 };
  }

  private async readChunked(): Promise<{ body: Buffer; chunks: number }> {
    const parts: Buffer[] = [];
    for (;;) {
      const sizeLine = await this.readLine();
      if (!HEX.test(sizeLine)) throw new FramingError(`not a chunk size: ${JSON.stringify(sizeLine.slice(0, 80))}`);
      const size = parseInt(sizeLine, 16);
      if (size === 0) {
        const trailer = await this.readLine();
        if (trailer !== '') throw new FramingError(`trailers after the last chunk: ${JSON.stringify(trailer)}`);
        return { body: Buffer.concat(parts), chunks: parts.length };
      }
      parts.push(await this.readBytes(size));
      const end = await this.readBytes(2);
      if (!end.equals(CRLF)) throw new FramingError(`chunk not followed by CRLF: ${preview(end)}`);
    }
  }

  private async readLine(): Promise<string> {
    for (;;) {
      const at = this.buffered.indexOf(CRLF);
      if (at >= 0) {
        const line = this.buffered.subarray(0, at).toString('latin1');
        this.buffered = this.buffered.subarray(at + 2);
        return line;
      }
      await this.more();
    }
  }

  private async readBytes(count: number): Promise<Buffer> {
    while (this.buffered.length < count) await this.more();
    const bytes = this.buffered.subarray(0, count);
    this.buffered = this.buffered.subarray(count);
    return bytes;
  }

  private more(): Promise<void> {
    if (this.ended) return Promise.reject(new FramingError('the connection ended mid-response'));
    return new Promise((resolve) => {
      this.wake = () => {
        this.wake = undefined;
        resolve();
      };
    });
  }
}

function preview(bytes: Buffer): string {
  return JSON.stringify(bytes.subarray(0, 60).toString('latin1'));
}

/**
 * The SSE frames of a body, split exactly on blank lines: every frame must be whole (the body
 * ends with a blank line) and consist of `field: value` lines.
 */
export function sseFrames(body: string): { data: string[]; comments: number } {
  if (!body.endsWith('\n\n'))
    throw new FramingError(`the stream does not end with a whole frame: ${JSON.stringify(body.slice(-60))}`);
  const data: string[] = [];
  let comments = 0;
  for (const frame of body.slice(0, -2).split('\n\n')) {
    const lines = frame.split('\n');
    if (lines.every((line) => line.startsWith(':'))) {
      comments++;
      continue;
    }
    const dataLines = lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice(6));
    if (dataLines.length === 0) throw new FramingError(`a frame without data: ${JSON.stringify(frame.slice(0, 80))}`);
    data.push(dataLines.join('\n'));
  }
  return { data, comments };
}
