/**
 * A minimal FLAC encoder (the FLAC format, RFC 9639): the `fLaC` marker, a STREAMINFO block,
 * then fixed-blocksize frames of one VERBATIM subframe each (mono, 16 bits). No compression,
 * but a real stream any decoder reads: frame headers carry their CRC-8, frames their CRC-16.
 */
const BLOCK_SIZE = 4096;
const BITS_PER_SAMPLE = 16;

export function encodeFlac(samples: Int16Array, sampleRate: number): Uint8Array {
  const frames: Uint8Array[] = [];
  for (let start = 0, index = 0; start < samples.length; start += BLOCK_SIZE, index++)
    frames.push(frame(samples.subarray(start, start + BLOCK_SIZE), index));
  return concat([Buffer.from('fLaC', 'latin1'), streamInfo(samples.length, sampleRate), ...frames]);
}

/** The one metadata block, flagged last: sizes, rate, channels, depth, total samples; no MD5. */
function streamInfo(totalSamples: number, sampleRate: number): Uint8Array {
  const block = new Uint8Array(4 + 34);
  block[0] = 0x80; // last metadata block, type 0 (STREAMINFO)
  block[3] = 34;
  const view = new DataView(block.buffer);
  view.setUint16(4, BLOCK_SIZE);
  view.setUint16(6, BLOCK_SIZE);
  // Frame sizes (24 bits each) left 0: "unknown", as the format allows.
  // 20 bits rate, 3 bits channels − 1, 5 bits depth − 1, 36 bits total samples.
  const packed =
    (BigInt(sampleRate) << 44n) | (0n << 41n) | (BigInt(BITS_PER_SAMPLE - 1) << 36n) | BigInt(totalSamples);
  view.setBigUint64(14, packed);
  return block;
}

function frame(samples: Int16Array, index: number): Uint8Array {
  const header = [
    0xff,
    0xf8, // sync code, fixed block size
    0x70, // block size: 16 bits at the header's end; sample rate: from STREAMINFO
    0x08, // mono, 16 bits per sample
    ...utf8Number(index),
    (samples.length - 1) >> 8,
    (samples.length - 1) & 0xff,
  ];
  header.push(crc8(header));
  const body = new Uint8Array(header.length + 1 + samples.length * 2 + 2);
  body.set(header, 0);
  body[header.length] = 0x02; // VERBATIM subframe, no wasted bits
  const view = new DataView(body.buffer);
  let at = header.length + 1;
  for (const sample of samples) {
    view.setInt16(at, sample);
    at += 2;
  }
  view.setUint16(at, crc16(body.subarray(0, at)));
  return body;
}

/** The frame number in FLAC's UTF-8-like coding (up to 2^31, plenty for simulated clips). */
function utf8Number(value: number): number[] {
  if (value < 0x80) return [value];
  if (value < 0x800) return [0xc0 | (value >> 6), 0x80 | (value & 0x3f)];
  if (value < 0x10000) return [0xe0 | (value >> 12), 0x80 | ((value >> 6) & 0x3f), 0x80 | (value & 0x3f)];
  return [0xf0 | (value >> 18), 0x80 | ((value >> 12) & 0x3f), 0x80 | ((value >> 6) & 0x3f), 0x80 | (value & 0x3f)];
}

/** CRC-8, polynomial x^8 + x^2 + x + 1, initial 0. */
export function crc8(bytes: ArrayLike<number>): number {
  let crc = 0;
  for (let i = 0; i < bytes.length; i++) {
    crc ^= bytes[i]!;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

/** CRC-16, polynomial x^16 + x^15 + x^2 + 1, initial 0. */
export function crc16(bytes: ArrayLike<number>): number {
  let crc = 0;
  for (let i = 0; i < bytes.length; i++) {
    crc ^= bytes[i]! << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x8005) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

const concat = (parts: readonly Uint8Array[]): Uint8Array => Buffer.concat(parts);
