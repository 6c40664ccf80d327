import { createHash } from 'node:crypto';

/**
 * Deterministic embeddings for the simulators: a vector seeded from the model and the text, so
 * equal inputs give equal vectors and different ones differ, with no model behind them. The
 * full-length vector is unit length; a shorter one is its first `dimensions` values, which
 * OpenAI renormalises to unit length and Gemini leaves as they are (each simulator says which).
 */

/** The first `dimensions` values of the model's full vector for `text`, as float32 values. */
export function embeddingValues(
  model: string,
  text: string,
  full: number,
  dimensions: number,
  unit: boolean,
): number[] {
  const values = new Array<number>(full);
  let block = Buffer.alloc(0);
  for (let i = 0; i < full; i++) {
    const offset = (i * 4) % 32;
    if (offset === 0) block = createHash('sha256').update(`${model}\n${i}\n${text}`).digest();
    // A uniform value in [-1, 1) from four bytes of the hash.
    values[i] = block.readUInt32LE(offset) / 0x80000000 - 1;
  }
  scale(values, 1);
  const cut = values.slice(0, dimensions);
  if (unit) scale(cut, 1);
  return cut.map((value) => Math.fround(value));
}

function scale(values: number[], length: number): void {
  let sum = 0;
  for (const value of values) sum += value * value;
  const norm = Math.sqrt(sum) || 1;
  for (let i = 0; i < values.length; i++) values[i] = (values[i]! / norm) * length;
}

/** The float32 values as OpenAI's `base64` encoding writes them (little-endian). */
export function base64Of(values: readonly number[]): string {
  const bytes = Buffer.alloc(values.length * 4);
  values.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString('base64');
}

/** The simulators' token count of a text: a quarter of its UTF-8 bytes, at least one. */
export const embeddingTokens = (text: string): number => Math.max(1, Math.ceil(Buffer.byteLength(text, 'utf8') / 4));
