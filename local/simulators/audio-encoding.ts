import { Mp3Encoder } from '@breezystack/lamejs';
import { encodeFlac } from './audio-flac.js';
import { toneSamples } from './audio-tone.js';

/**
 * The simulated audio in each format MiniMax answers: the tone of audio-tone.ts as a RIFF WAV
 * (PCM), raw PCM (signed 16-bit little-endian), FLAC (audio-flac.ts) or MP3 (real MPEG audio
 * frames from lamejs, a pure-JS LAME port). Mono throughout.
 */
export const SIMULATED_FORMATS = ['mp3', 'wav', 'pcm', 'flac'] as const;
export type SimulatedFormat = (typeof SIMULATED_FORMATS)[number];

export interface AudioSpec {
  readonly format: SimulatedFormat;
  readonly sampleRate: number;
  /** Bits per second; only MP3 uses it. */
  readonly bitrate: number;
  readonly durationMs: number;
}

/**
 * Answers repeat (tests ask for the same clip many times), so recent encodings are kept, a
 * bounded few.
 */
const CACHE_ENTRIES = 32;
const cache = new Map<string, Uint8Array>();

export function encodedTone(spec: AudioSpec): Uint8Array {
  const key = `${spec.format}/${spec.sampleRate}/${spec.bitrate}/${spec.durationMs}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const samples = spec.format === 'mp3' ? new Int16Array(0) : toneSamples(spec.sampleRate, spec.durationMs);
  const bytes = ENCODERS[spec.format](samples, spec);
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(key, bytes);
  return bytes;
}

const ENCODERS: Readonly<Record<SimulatedFormat, (samples: Int16Array, spec: AudioSpec) => Uint8Array>> = {
  pcm: (samples) => littleEndian(samples),
  wav: (samples, spec) => Buffer.concat([wavHeader(samples.length * 2, spec.sampleRate), littleEndian(samples)]),
  flac: (samples, spec) => encodeFlac(samples, spec.sampleRate),
  mp3: (_samples, spec) => {
    const unit = mp3Unit(spec.sampleRate, spec.bitrate);
    return Buffer.concat(Array.from({ length: Math.max(1, Math.round(spec.durationMs / MP3_UNIT_MS)) }, () => unit));
  },
};

/**
 * MP3 encoding in JS is slow (about a second per second of audio under jest on a busy machine),
 * so an MP3 clip is one encoded quarter second repeated: each copy is a whole MPEG stream
 * (its first frame takes nothing from the bit reservoir), and concatenated MPEG streams are
 * one valid stream, as every decoder reads them.
 */
const MP3_UNIT_MS = 250;
const mp3Units = new Map<string, Uint8Array>();

function mp3Unit(sampleRate: number, bitrate: number): Uint8Array {
  const key = `${sampleRate}/${bitrate}`;
  let unit = mp3Units.get(key);
  if (!unit) {
    const encoder = new Mp3Encoder(1, sampleRate, Math.round(bitrate / 1000));
    const samples = toneSamples(sampleRate, MP3_UNIT_MS);
    unit = Buffer.concat([encoder.encodeBuffer(samples), encoder.flush()].map(asBytes));
    mp3Units.set(key, unit);
  }
  return unit;
}

/** lamejs hands out signed bytes (Int8Array): the same memory, read unsigned. */
const asBytes = (chunk: ArrayBufferView): Uint8Array =>
  new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);

function littleEndian(samples: Int16Array): Uint8Array {
  const bytes = Buffer.alloc(samples.length * 2);
  samples.forEach((sample, i) => bytes.writeInt16LE(sample, i * 2));
  return bytes;
}

/** The canonical 44-byte RIFF/WAVE header of 16-bit mono PCM. */
function wavHeader(dataBytes: number, sampleRate: number): Uint8Array {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28); // bytes per second
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}
