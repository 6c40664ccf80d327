import { randomBytes } from 'node:crypto';
import type { SimExchange, SimRoute } from './harness.js';

/**
 * The MiniMax fake's answer to `output_format: "url"`: the audio is kept in memory and served
 * from the simulator's own address, without the API key (as MiniMax's CDN links are), until
 * its expiry (24 h, MiniMax's; shorter with `[sim:url_ttl_ms=N]`). After it the link answers
 * 403, as an expired signed URL does. A bounded number of files is kept, oldest dropped first.
 */
export const URL_TTL_MS = 24 * 60 * 60 * 1000;
const MAX_FILES = 64;

interface StoredFile {
  readonly bytes: Uint8Array;
  readonly contentType: string;
  readonly expiresAt: number;
}

const files = new Map<string, StoredFile>();

/** Keeps the audio and returns its URL on the simulator that answered `exchange`. */
export function publishAudio(exchange: SimExchange, bytes: Uint8Array, format: string, ttlMs = URL_TTL_MS): string {
  const id = randomBytes(12).toString('hex');
  const expiresAt = Date.now() + ttlMs;
  if (files.size >= MAX_FILES) files.delete(files.keys().next().value!);
  files.set(id, { bytes, contentType: CONTENT_TYPES[format] ?? 'application/octet-stream', expiresAt });
  const host = exchange.headers.host ?? '127.0.0.1';
  return `http://${host}/files/audio/${id}.${format}?expires=${Math.floor(expiresAt / 1000)}`;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  flac: 'audio/flac',
  pcm: 'application/octet-stream',
};

export const AUDIO_FILE_ROUTE: SimRoute = {
  method: 'GET',
  path: /^\/files\/audio\/(?<id>[0-9a-f]{24})\.[a-z0-9]+$/,
  faultable: false,
  anonymous: true,
  async handle(x) {
    const file = files.get(x.params['id']!);
    if (!file) return x.send({ status: 404, headers: { 'Content-Type': 'text/plain' }, body: 'NoSuchKey' });
    if (Date.now() >= file.expiresAt) {
      return x.send({ status: 403, headers: { 'Content-Type': 'text/plain' }, body: 'Request has expired' });
    }
    return x.send({
      status: 200,
      headers: { 'Content-Type': file.contentType },
      body: file.bytes,
    });
  },
};
