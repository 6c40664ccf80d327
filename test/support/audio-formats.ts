/**
 * Strict readers of the audio the gateway returns, for tests: a RIFF/WAVE header, a FLAC
 * stream decoded frame by frame (VERBATIM subframes, as the MiniMax fake writes them; CRCs
 * checked), and an MPEG audio frame walk that must land exactly on the end of the bytes.
 */
export interface WavInfo {
  readonly sampleRate: number;
  readonly channels: number;
  readonly bitsPerSample: number;
  readonly dataBytes: number;
}

export function parseWav(bytes: Buffer): WavInfo {
  if (bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WAVE')
    throw new Error('not a RIFF/WAVE file');
  if (bytes.readUInt32LE(4) !== bytes.length - 8) throw new Error('RIFF size does not match the file');
  if (bytes.toString('latin1', 12, 16) !== 'fmt ' || bytes.readUInt16LE(20) !== 1) throw new Error('not PCM');
  if (bytes.toString('latin1', 36, 40) !== 'data') throw new Error('no data chunk');
  const info = {
    channels: bytes.readUInt16LE(22),
    sampleRate: bytes.readUInt32LE(24),
    bitsPerSample: bytes.readUInt16LE(34),
    dataBytes: bytes.readUInt32LE(40),
  };
  if (info.dataBytes !== bytes.length - 44) throw new Error('data size does not match the file');
  return info;
}

export interface FlacInfo {
  readonly sampleRate: number;
  readonly channels: number;
  readonly bitsPerSample: number;
  readonly totalSamples: number;
  /** Samples decoded from the frames. */
  readonly decodedSamples: number;
}

export function parseFlac(bytes: Buffer): FlacInfo {
  if (bytes.toString('latin1', 0, 4) !== 'fLaC') throw new Error('no fLaC marker');
  if ((bytes[4]! & 0x7f) !== 0) throw new Error('first metadata block is not STREAMINFO');
  const packed = bytes.readBigUInt64BE(18);
  const info = {
    sampleRate: Number(packed >> 44n),
    channels: Number((packed >> 41n) & 7n) + 1,
    bitsPerSample: Number((packed >> 36n) & 31n) + 1,
    totalSamples: Number(packed & 0xfffffffffn),
  };
  let at = 8 + 34;
  let decoded = 0;
  while (at < bytes.length) {
    const frame = readVerbatimFrame(bytes, at);
    decoded += frame.samples;
    at = frame.end;
  }
  return { ...info, decodedSamples: decoded };
}

function readVerbatimFrame(bytes: Buffer, start: number): { samples: number; end: number } {
  if (bytes[start] !== 0xff || bytes[start + 1] !== 0xf8) throw new Error(`no frame sync at ${start}`);
  if (bytes[start + 2]! >> 4 !== 0x7) throw new Error('unexpected block size code');
  let at = start + 4;
  const lead = bytes[at]!;
  at += lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
  const samples = bytes.readUInt16BE(at) + 1;
  at += 2;
  if (crc(bytes.subarray(start, at), 8, 0x07) !== bytes[at]) throw new Error('frame header CRC-8 mismatch');
  at += 1;
  if (bytes[at] !== 0x02) throw new Error('not a VERBATIM subframe');
  at += 1 + samples * 2;
  if (crc(bytes.subarray(start, at), 16, 0x8005) !== bytes.readUInt16BE(at)) throw new Error('frame CRC-16 mismatch');
  return { samples, end: at + 2 };
}

function crc(bytes: Uint8Array, width: 8 | 16, poly: number): number {
  const top = 1 << (width - 1);
  const mask = (1 << width) - 1;
  let value = 0;
  for (const byte of bytes) {
    value ^= byte << (width - 8);
    for (let bit = 0; bit < 8; bit++) value = value & top ? ((value << 1) ^ poly) & mask : (value << 1) & mask;
  }
  return value;
}

export interface Mp3Info {
  readonly frames: number;
  readonly sampleRate: number;
  readonly layer: number;
}

const MPEG1_L3_KBPS = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const MPEG2_L3_KBPS = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const RATES: Readonly<Record<number, readonly number[]>> = {
  3: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  0: [11025, 12000, 8000],
};

/** Walks MPEG Layer III frames from the first byte; every header must sync and the walk end exactly. */
export function walkMp3(bytes: Buffer): Mp3Info {
  let at = 0;
  let frames = 0;
  let sampleRate = 0;
  while (at < bytes.length) {
    if (bytes[at] !== 0xff || (bytes[at + 1]! & 0xe0) !== 0xe0) throw new Error(`no frame sync at ${at}`);
    const version = (bytes[at + 1]! >> 3) & 3;
    const layer = 4 - ((bytes[at + 1]! >> 1) & 3);
    if (layer !== 3 || version === 1) throw new Error('not MPEG Layer III');
    const kbps = (version === 3 ? MPEG1_L3_KBPS : MPEG2_L3_KBPS)[bytes[at + 2]! >> 4];
    sampleRate = RATES[version]![(bytes[at + 2]! >> 2) & 3]!;
    if (!kbps || !sampleRate) throw new Error('bad bitrate or sample rate index');
    const padding = (bytes[at + 2]! >> 1) & 1;
    at += Math.floor(((version === 3 ? 144 : 72) * kbps * 1000) / sampleRate) + padding;
    frames++;
  }
  if (at !== bytes.length) throw new Error('the last frame is cut short');
  return { frames, sampleRate, layer: 3 };
}
