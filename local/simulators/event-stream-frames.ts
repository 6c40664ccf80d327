import { crc32 } from 'node:zlib';

/**
 * The encoder of AWS's binary event stream (`application/vnd.amazon.eventstream`) for the
 * Bedrock simulator: string headers only, as Bedrock's frames carry. The gateway's decoder
 * (lambdas/providers/bedrock/event-stream-decoder.ts) is tested against frames of the AWS
 * SDK's own codec as well as these, so a shared mistake would show.
 */
export function eventStreamFrame(headers: Readonly<Record<string, string>>, payload: Uint8Array | string): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : Buffer.from(payload);
  const encoded = Object.entries(headers).map(([name, value]) => {
    const nameBytes = Buffer.from(name);
    const valueBytes = Buffer.from(value);
    const header = Buffer.alloc(1 + nameBytes.length + 1 + 2 + valueBytes.length);
    header.writeUInt8(nameBytes.length, 0);
    nameBytes.copy(header, 1);
    header.writeUInt8(7, 1 + nameBytes.length);
    header.writeUInt16BE(valueBytes.length, 2 + nameBytes.length);
    valueBytes.copy(header, 4 + nameBytes.length);
    return header;
  });
  const headerBytes = Buffer.concat(encoded);
  const total = 12 + headerBytes.length + body.length + 4;
  const frame = Buffer.alloc(total);
  frame.writeUInt32BE(total, 0);
  frame.writeUInt32BE(headerBytes.length, 4);
  frame.writeUInt32BE(crc32(frame.subarray(0, 8)), 8);
  headerBytes.copy(frame, 12);
  body.copy(frame, 12 + headerBytes.length);
  frame.writeUInt32BE(crc32(frame.subarray(0, total - 4)), total - 4);
  return frame;
}

/** An event frame as Bedrock sends one: `:event-type`, JSON content, message type `event`. */
export const eventFrame = (eventType: string, json: string): Buffer =>
  eventStreamFrame({ ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' }, json);

/** An exception frame inside a 200 stream: `:exception-type` names the error. */
export const exceptionFrame = (exceptionType: string, json: string): Buffer =>
  eventStreamFrame(
    { ':exception-type': exceptionType, ':content-type': 'application/json', ':message-type': 'exception' },
    json,
  );
