import { createHmac } from 'node:crypto';

/**
 * An authenticator app for tests: RFC 6238 TOTP (HMAC-SHA-1, 30 s steps) written here from
 * node:crypto, independent of the stand-in's, and checked against the RFC's own vectors
 * (test/unit/standins/cognito-mfa.test.ts). `codes()` hands out codes as a careful user would:
 * a new step each time (a server refuses a code used before), waiting for the clock when the
 * next step is not yet within the server's one-step tolerance.
 */

const STEP_MS = 30_000;

export function base32Bytes(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...text.toUpperCase()].map((c) => alphabet.indexOf(c).toString(2).padStart(5, '0')).join('');
  const bytes: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** The TOTP of `key` at `unixSeconds`. */
export function totp(key: Buffer, unixSeconds: number, digits = 6): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(unixSeconds / 30)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[19]! & 0xf;
  const value = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(value % 10 ** digits).padStart(digits, '0');
}

/** The code of a base32 secret at epoch ms `at`. */
export const codeAt = (secret: string, at: number): string => totp(base32Bytes(secret), at / 1000);

/** A six-digit code that is none of the secret's codes from one step before `at` to one after. */
export function wrongCode(secret: string, at = Date.now()): string {
  const near = new Set([-STEP_MS, 0, STEP_MS].map((offset) => codeAt(secret, at + offset)));
  let candidate = Number(codeAt(secret, at));
  do candidate = (candidate + 1) % 1_000_000;
  while (near.has(String(candidate).padStart(6, '0')));
  return String(candidate).padStart(6, '0');
}

/** A device holding `secret`: each call the code of a step not used before, from now or the next. */
export function authenticator(secret: string): { next: () => Promise<string>; secret: string } {
  let lastStep = -Infinity;
  return {
    secret,
    async next() {
      const stepNow = () => Math.floor(Date.now() / STEP_MS);
      // Never the previous step: the clock may pass the boundary before the server checks it.
      const step = Math.max(lastStep + 1, stepNow());
      while (step > stepNow() + 1) {
        await new Promise((resolve) => setTimeout(resolve, (stepNow() + 1) * STEP_MS - Date.now() + 5));
      }
      lastStep = step;
      return codeAt(secret, step * STEP_MS);
    },
  };
}
