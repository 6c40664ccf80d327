import type { UpstreamVector } from './embedding-adapter.js';
import type { EncodingFormat } from './embeddings-request.js';

/** OpenAI's `CreateEmbeddingResponse`, as the official SDKs parse it. */
export interface EmbeddingList {
  readonly object: 'list';
  readonly data: readonly {
    readonly object: 'embedding';
    readonly index: number;
    readonly embedding: number[] | string;
  }[];
  readonly model: string;
  readonly usage: { readonly prompt_tokens: number; readonly total_tokens: number };
}

/**
 * A vector in the encoding the caller asked for. `base64` is the little-endian float32 bytes
 * (what OpenAI sends and its SDKs decode); a vector that came as numbers is rounded to float32
 * for it, as OpenAI's own are. A base64 vector asked for as `float` is decoded.
 */
export function encodeVector(vector: UpstreamVector, encoding: EncodingFormat): number[] | string {
  if ('base64' in vector) return encoding === 'base64' ? vector.base64 : decodeFloat32(vector.base64);
  if (encoding === 'float') return vector.values as number[];
  const bytes = Buffer.alloc(vector.values.length * 4);
  vector.values.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString('base64');
}

export function decodeFloat32(base64: string): number[] {
  const bytes = Buffer.from(base64, 'base64');
  const values = new Array<number>(bytes.length / 4);
  for (let i = 0; i < values.length; i++) values[i] = bytes.readFloatLE(i * 4);
  return values;
}
