import type { KeyType } from '../store/api-keys.js';
import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Service API keys: `<prefix><keyId>_<secret>`. The key id is what the identity table is
 * keyed by, so a lookup is one GetItem; the secret carries 256 bits of entropy, so a plain
 * SHA-256 of the whole key is a safe verifier (no slow hash needed for random secrets).
 */

export const KEY_PREFIXES: Record<KeyType, string> = { secret: 'sk_', publishable: 'pk_' };

const KEY_ID_LENGTH = 20;
const KEY_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const KEY_PATTERN = /^(sk|pk)_([a-z2-7]{20})_([A-Za-z0-9_-]{43})$/;

export interface ParsedKey {
  readonly type: KeyType;
  readonly keyId: string;
}

export interface NewKey {
  readonly type: KeyType;
  readonly keyId: string;
  /** The full key: shown to its owner once, never stored. */
  readonly key: string;
  readonly hash: string;
}

export function generateKey(type: KeyType): NewKey {
  const keyId = randomKeyId();
  const key = `${KEY_PREFIXES[type]}${keyId}_${randomBytes(32).toString('base64url')}`;
  return { type, keyId, key, hash: hashKey(key) };
}

/** Parses the shape only; whether the key is real is for `verifyKey` against the stored hash. */
export function parseKey(candidate: string): ParsedKey | undefined {
  const match = KEY_PATTERN.exec(candidate);
  if (!match) return undefined;
  return { type: match[1] === 'sk' ? 'secret' : 'publishable', keyId: match[2]! };
}

/** One-shot `hash`: no Hash object per call, on every authenticated request. */
export function hashKey(key: string): string {
  return hash('sha256', key, 'base64url');
}

/** Constant-time: both sides are fixed-length digests. */
export function verifyKey(candidate: string, storedHash: string): boolean {
  const actual = hash('sha256', candidate, 'buffer');
  const expected = Buffer.from(storedHash, 'base64url');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Constant-time equality for other secrets (the admin token). */
export function secretsEqual(candidate: string, expected: string): boolean {
  const a = createHash('sha256').update(candidate).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

function randomKeyId(): string {
  const bytes = randomBytes(KEY_ID_LENGTH);
  let id = '';
  for (const byte of bytes) id += KEY_ID_ALPHABET[byte & 31];
  return id;
}
