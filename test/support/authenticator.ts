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

/**
 * The clock a stand-in checks codes against, ahead of the real one by what tests moved it
 * (local/standins/cognito.ts, TOTP_CLOCK_CONTROL): read before every code, moved instead of
 * waiting for the next step.
 */
export interface TotpClock {
  /** Milliseconds the checking clock is ahead of this one. */
  offsetMs(): Promise<number>;
  /** Moves it one step ahead; the new offset. */
  advance(): Promise<number>;
}

/** The Cognito stand-in's TOTP clock, through its control API at `cognitoUrl`. */
export function standInTotpClock(cognitoUrl: string): TotpClock {
  const move = async (steps: number) => {
    const response = await fetch(`${cognitoUrl}/__local/totp-clock?advanceSteps=${steps}`, { method: 'POST' });
    if (!response.ok) throw new Error(`totp-clock control answered ${response.status}`);
    return ((await response.json()) as { offsetMs: number }).offsetMs;
  };
  return { offsetMs: () => move(0), advance: () => move(1) };
}

/** The real clock, which only time moves: a device waits for the next step. */
const realClock: TotpClock = {
  offsetMs: async () => 0,
  advance: async () => {
    await new Promise((resolve) => setTimeout(resolve, STEP_MS - (Date.now() % STEP_MS) + 5));
    return 0;
  },
};

/**
 * A device holding `secret`: each call the code of a step not used before, from now or the
 * next, on `clock` (the stand-in's, so no test waits; the real one by default).
 */
export function authenticator(
  secret: string,
  clock: TotpClock = realClock,
): { next: () => Promise<string>; secret: string } {
  let lastStep = -Infinity;
  return {
    secret,
    async next() {
      for (;;) {
        const stepNow = Math.floor((Date.now() + (await clock.offsetMs())) / STEP_MS);
        // Never the previous step: the clock may pass the boundary before the server checks it.
        const step = Math.max(lastStep + 1, stepNow);
        if (step <= stepNow + 1) {
          lastStep = step;
          return codeAt(secret, step * STEP_MS);
        }
        await clock.advance();
      }
    },
  };
}
