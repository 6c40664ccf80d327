import { crc32 } from 'node:zlib';
import type { SseEvent } from '../sse-parser.js';
import { UpstreamError } from '../upstream-failure.js';

/**
 * An incremental decoder of AWS's binary event stream (`application/vnd.amazon.eventstream`),
 * the framing of Bedrock's ConverseStream (docs/upstreams.md, "Amazon Bedrock"). One frame:
 *
 *   total length (u32) | headers length (u32) | prelude CRC32 (of the 8 bytes before it)
 *   | headers | payload | message CRC32 (of everything before it)
 *
 * Frames may arrive split at any byte; both checksums are verified; a frame longer than
 * MAX_FRAME_BYTES is refused as soon as its prelude is read, so a broken or hostile upstream
 * can make the decoder hold at most one frame's bytes. Any violation is an UpstreamError
 * (`malformed`): the attempt failed, the function did not.
 */

/** Bedrock's own frames hold one JSON event of at most a few kilobytes; a mebibyte is ample. */
export const MAX_FRAME_BYTES = 1024 * 1024;
const PRELUDE_BYTES = 12;
/** Prelude plus the message CRC: a frame with neither headers nor payload. */
const MIN_FRAME_BYTES = 16;

export type HeaderValue = string | number | bigint | boolean | Uint8Array;

export interface EventStreamMessage {
  readonly headers: Readonly<Record<string, HeaderValue>>;
  readonly payload: Uint8Array;
}

export class EventStreamDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The current frame's length, once its prelude was read and checked. */
  private frameBytes: number | undefined;

  /** Feeds bytes; returns the frames they completed, in order. */
  push(chunk: Uint8Array): EventStreamMessage[] {
    if (chunk.length > 0) {
      this.pending.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
      this.pendingBytes += chunk.length;
    }
    const messages: EventStreamMessage[] = [];
    for (;;) {
      if (this.frameBytes === undefined) {
        if (this.pendingBytes < PRELUDE_BYTES) break;
        this.frameBytes = preludeLength(this.peek(PRELUDE_BYTES));
      }
      if (this.pendingBytes < this.frameBytes) break;
      const frame = this.take(this.frameBytes);
      this.frameBytes = undefined;
      messages.push(decodeFrame(frame));
    }
    return messages;
  }

  /** The connection ended: bytes of an unfinished frame mean the stream was cut. */
  end(): void {
    if (this.pendingBytes > 0)
      throw new UpstreamError({ kind: 'connection', message: 'bedrock event stream ended inside a frame' });
  }

  private peek(bytes: number): Buffer {
    if (this.pending[0]!.length < bytes) this.pending = [Buffer.concat(this.pending)];
    return this.pending[0]!.subarray(0, bytes);
  }

  /** The first `bytes` pending bytes, copied once; the rest stays pending. */
  private take(bytes: number): Buffer {
    const whole = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    const rest = whole.subarray(bytes);
    this.pending = rest.length > 0 ? [rest] : [];
    this.pendingBytes -= bytes;
    return whole.subarray(0, bytes);
  }
}

/** The frame's total length, once the prelude's checksum and lengths hold. */
function preludeLength(prelude: Buffer): number {
  const total = prelude.readUInt32BE(0);
  const headers = prelude.readUInt32BE(4);
  if (crc32(prelude.subarray(0, 8)) !== prelude.readUInt32BE(8)) throw malformed('prelude checksum mismatch');
  if (total > MAX_FRAME_BYTES) throw malformed(`frame of ${total} bytes exceeds ${MAX_FRAME_BYTES}`);
  if (total < MIN_FRAME_BYTES || headers > total - MIN_FRAME_BYTES)
    throw malformed(`frame lengths ${total}/${headers} are inconsistent`);
  return total;
}

function decodeFrame(frame: Buffer): EventStreamMessage {
  const end = frame.length - 4;
  if (crc32(frame.subarray(0, end)) !== frame.readUInt32BE(end)) throw malformed('message checksum mismatch');
  const headersEnd = PRELUDE_BYTES + frame.readUInt32BE(4);
  return {
    headers: decodeHeaders(frame.subarray(PRELUDE_BYTES, headersEnd)),
    payload: frame.subarray(headersEnd, end),
  };
}

function decodeHeaders(bytes: Buffer): Record<string, HeaderValue> {
  const headers: Record<string, HeaderValue> = {};
  let at = 0;
  const need = (n: number) => {
    if (at + n > bytes.length) throw malformed('header runs past its section');
  };
  while (at < bytes.length) {
    need(1);
    const nameLength = bytes.readUInt8(at++);
    need(nameLength + 1);
    const name = bytes.toString('utf8', at, at + nameLength);
    at += nameLength;
    const type = bytes.readUInt8(at++);
    headers[name] = headerValue(type);
  }
  return headers;

  function headerValue(type: number): HeaderValue {
    switch (type) {
      case 0:
        return true;
      case 1:
        return false;
      case 2:
        need(1);
        return bytes.readInt8((at += 1) - 1);
      case 3:
        need(2);
        return bytes.readInt16BE((at += 2) - 2);
      case 4:
        need(4);
        return bytes.readInt32BE((at += 4) - 4);
      case 5:
      case 8:
        need(8);
        return bytes.readBigInt64BE((at += 8) - 8);
      case 6:
      case 7: {
        need(2);
        const length = bytes.readUInt16BE(at);
        at += 2;
        need(length);
        const value = bytes.subarray(at, (at += length));
        return type === 7 ? value.toString('utf8') : new Uint8Array(value);
      }
      case 9:
        need(16);
        return new Uint8Array(bytes.subarray(at, (at += 16)));
      default:
        throw malformed(`unknown header value type ${type}`);
    }
  }
}

/**
 * The event-stream decoder as the stream translators' event source: an event frame is named by
 * its `:event-type`, an exception frame by its `:exception-type` (prefixed `exception:`), an
 * error frame by its `:error-code` (prefixed `error:`); the data is the payload's text.
 */
export class BedrockEventSource {
  private readonly decoder = new EventStreamDecoder();
  private readonly text = new TextDecoder('utf-8');

  push(chunk: Uint8Array | string): SseEvent[] {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    return this.decoder.push(bytes).map((message) => this.eventOf(message));
  }

  end(): SseEvent[] {
    this.decoder.end();
    return [];
  }

  private eventOf({ headers, payload }: EventStreamMessage): SseEvent {
    const data = this.text.decode(payload);
    const messageType = headers[':message-type'];
    if (messageType === 'exception') return { event: `exception:${String(headers[':exception-type'])}`, data };
    if (messageType === 'error')
      return {
        event: `error:${String(headers[':error-code'])}`,
        data: JSON.stringify({ message: String(headers[':error-message'] ?? '') }),
      };
    return { event: String(headers[':event-type']), data };
  }
}

function malformed(message: string): UpstreamError {
  return new UpstreamError({ kind: 'malformed', message: `bedrock event stream: ${message}` });
}
