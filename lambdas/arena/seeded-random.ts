/**
 * Deterministic randomness for the arena: ballot orders and tie draws must replay exactly from
 * a session's seed (tests, audits, resumed sessions), so nothing here reads Math.random or a clock.
 */

import { createHash } from 'node:crypto';

const TWO_POW_32 = 2 ** 32;

/**
 * A PRNG in [0, 1) seeded from `seed`: sha256 of the string gives the 128-bit state of an sfc32
 * generator (small, fast, and passes PractRand far beyond the few draws a session makes).
 */
export function seededRandom(seed: string): () => number {
  const digest = createHash('sha256').update(seed, 'utf8').digest();
  let a = digest.readUInt32LE(0);
  let b = digest.readUInt32LE(4);
  let c = digest.readUInt32LE(8);
  let d = digest.readUInt32LE(12);
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / TWO_POW_32;
  };
  // The first outputs of sfc32 still carry the seed's structure; the reference warms it up.
  for (let i = 0; i < 12; i++) next();
  return next;
}

/** An index in [0, size) drawn from `random`, clamped in case a caller's generator returns 1. */
export function randomIndex(size: number, random: () => number): number {
  return Math.min(size - 1, Math.floor(random() * size));
}

/** A shuffled copy of `items` (Fisher-Yates); `items` is left as it was. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomIndex(i + 1, random);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
